/// Places and their announcements, of record. Every change raises the store's revision in the
/// same transaction, which is how each instance knows to reload its directory.
public protocol PlaceStore: Sendable {
    /// The revision now: it changes with every committed change to a place or an announcement.
    func revision() async throws -> Int64
    /// Every place and every announcement not yet ended, with the revision they were read at.
    func directory() async throws -> PlaceDirectory
    /// Creates or replaces a place (audited as `place_put`); true when it was created.
    func put(_ place: Place, actor: String) async throws -> Bool
    /// Deletes a place and its announcements (audited as `place_delete`); false when there was none.
    func delete(slug: String, actor: String) async throws -> Bool
    /// Adds an announcement to a place (audited as `announcement_post`); `nil` if there is no such place.
    func announce(_ draft: AnnouncementDraft, place slug: String, actor: String) async throws -> Announcement?
    /// Deletes an announcement (audited as `announcement_delete`); false when there was none.
    func deleteAnnouncement(id: Int64, actor: String) async throws -> Bool
}

public enum PlaceLimits {
    /// Places a board keeps: each is tested by queries naming it, never by every query.
    public static let places = 10_000
}
