import Foundation
import GeoIndex

/// Places and announcements, through the board: writes go to the store, then the directory is
/// reloaded at once on this instance (other instances follow the store's revision).
extension Board {
    /// The place a query names, `nil` when it names none; an unknown slug is a 400 on `place`.
    func resolvePlace(_ slug: String?) throws(ValidationError) -> Place? {
        guard let slug else { return nil }
        guard let place = placeDirectory.withLock({ $0.places[slug] }) else {
            throw ValidationError(field: "place", "must name a place; none is called \(slug)")
        }
        return place
    }

    public func place(slug: String) -> Place? {
        placeDirectory.withLock { $0.places[slug] }
    }

    /// The place a stream names, for matching events (a 400 on `place` when unknown).
    public func streamPlace(_ slug: String?) throws(ValidationError) -> Place? {
        try resolvePlace(slug)
    }

    /// How many visible posts lie in the place (on its floors, when it has some): whole index
    /// nodes inside it are counted from their sizes.
    public func postCount(in place: Place) -> Int {
        state.read { $0.index.count(in: place.shape.box, filter: PostFilter(floors: place.floorRange, place: place.shape, aliveAt: Timestamp.nowMilliseconds())) }
    }

    /// Places by slug after `after`, those whose box meets `box` (all when `nil`) and, with a
    /// point, those holding it.
    public func places(meeting box: GeoBox?, holding point: (lat: Double, lon: Double, floor: Int?)?, after: String?, limit: Int) -> Page<Place> {
        let directory = placeDirectory.withLock { $0 }
        var found: [Place] = []
        for slug in directory.sortedSlugs where after.map({ slug > $0 }) ?? true {
            let place = directory.places[slug]!
            if let box, !place.shape.box.meets(box) { continue }
            if let point, !place.contains(lat: point.lat, lon: point.lon, floor: point.floor ?? place.floors?.lowerBound) { continue }
            found.append(place)
            if found.count > limit { break }
        }
        let next = found.count > limit ? found[limit - 1].slug : nil
        return Page(items: Array(found.prefix(limit)), nextCursor: next)
    }

    /// The place's announcements that have not ended, newest first; `nil` if there is no such place.
    public func announcements(of slug: String, now: Int64 = Timestamp.nowMilliseconds()) -> [Announcement]? {
        placeDirectory.withLock { directory in
            guard directory.places[slug] != nil else { return nil }
            return (directory.announcements[slug] ?? []).filter { $0.isCurrent(at: now) }
        }
    }

    /// Creates or replaces a place; true when it was new.
    public func putPlace(_ place: Place, by moderator: String) async throws -> Bool {
        let created = try await placeRegistry().put(place, actor: moderator)
        try await reloadPlaces()
        return created
    }

    /// Deletes a place and its announcements; false when there was none.
    public func deletePlace(slug: String, by moderator: String) async throws -> Bool {
        let deleted = try await placeRegistry().delete(slug: slug, actor: moderator)
        try await reloadPlaces()
        return deleted
    }

    /// Adds an announcement; `nil` if there is no such place.
    public func announce(_ draft: AnnouncementDraft, in slug: String, by moderator: String) async throws -> Announcement? {
        let announcement = try await placeRegistry().announce(draft, place: slug, actor: moderator)
        try await reloadPlaces()
        return announcement
    }

    /// Deletes an announcement; false when there was none.
    public func deleteAnnouncement(id: Int64, by moderator: String) async throws -> Bool {
        let deleted = try await placeRegistry().deleteAnnouncement(id: id, actor: moderator)
        try await reloadPlaces()
        return deleted
    }

    /// Replaces the directory with the store's, when the store's revision differs from the
    /// one held (or always).
    public func reloadPlaces(onlyIfChanged: Bool = false) async throws {
        guard let placeStore else { return }
        if onlyIfChanged {
            let held = placeDirectory.withLock { $0.revision }
            guard try await placeStore.revision() != held else { return }
        }
        let fresh = try await placeStore.directory()
        // Two reloads may race: the later revision wins.
        placeDirectory.withLock { if fresh.revision >= $0.revision { $0 = fresh } }
    }

    public var placeCount: Int { placeDirectory.withLock { $0.places.count } }

    /// The store's revision the directory was read at.
    public var placeRevision: Int64 { placeDirectory.withLock { $0.revision } }

    private func placeRegistry() throws -> any PlaceStore {
        guard let placeStore else { throw StoreError.unavailable("this board has no place registry") }
        return placeStore
    }
}

extension GeoBox {
    /// Whether the two boxes share a point (either may cross the antimeridian).
    public func meets(_ other: GeoBox) -> Bool {
        guard south <= other.north, other.south <= north else { return false }
        // 180 and -180 are one meridian: a part ending at one meets a part starting at the other.
        func touchAcrossAntimeridian(_ a: GeoBox, _ b: GeoBox) -> Bool { a.east == 180 && b.west == -180 }
        return nonCrossingParts.contains { a in
            other.nonCrossingParts.contains { b in
                (a.west <= b.east && b.west <= a.east) || touchAcrossAntimeridian(a, b) || touchAcrossAntimeridian(b, a)
            }
        }
    }
}

extension Board {
    /// Every place as this instance knows them now (for matching deliveries' areas).
    public var places: PlaceDirectory { placeDirectory.withLock { $0 } }
}
