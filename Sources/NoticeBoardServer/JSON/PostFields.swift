import Foundation
import NoticeBoardCore

/// Which members of the post object a response carries: `fields=id,distance` (an extension of
/// the contract; without it every member is written, as the contract says). A phone that only
/// needs markers, or a client that only ranks ids, reads a small part of the bytes.
struct PostFields: OptionSet, Sendable {
    let rawValue: UInt32

    static let id = PostFields(rawValue: 1 << 0)
    static let lat = PostFields(rawValue: 1 << 1)
    static let lon = PostFields(rawValue: 1 << 2)
    static let heading = PostFields(rawValue: 1 << 3)
    static let message = PostFields(rawValue: 1 << 4)
    static let tag = PostFields(rawValue: 1 << 5)
    static let createdAt = PostFields(rawValue: 1 << 6)
    static let accuracy = PostFields(rawValue: 1 << 7)
    static let floor = PostFields(rawValue: 1 << 8)
    static let beacon = PostFields(rawValue: 1 << 9)
    static let distance = PostFields(rawValue: 1 << 10)
    static let bearing = PostFields(rawValue: 1 << 11)
    static let likeCount = PostFields(rawValue: 1 << 12)
    static let replyCount = PostFields(rawValue: 1 << 13)
    static let expiresAt = PostFields(rawValue: 1 << 14)
    static let likedByMe = PostFields(rawValue: 1 << 15)
    static let mine = PostFields(rawValue: 1 << 16)

    static let all = PostFields(rawValue: (1 << 17) - 1)

    static let names: [(name: String, field: PostFields)] = [
        ("id", .id), ("lat", .lat), ("lon", .lon), ("heading", .heading), ("message", .message), ("tag", .tag),
        ("createdAt", .createdAt), ("accuracy", .accuracy), ("floor", .floor), ("beacon", .beacon),
        ("distance", .distance), ("bearing", .bearing), ("likeCount", .likeCount), ("replyCount", .replyCount),
        ("expiresAt", .expiresAt), ("likedByMe", .likedByMe), ("mine", .mine),
    ]

    /// The `fields` parameter: comma-separated member names; absent means all of them.
    /// `available` is what the endpoint has (browse has no distance or bearing).
    static func parse(_ parameters: QueryParameters, available: PostFields = .all) throws(ValidationError) -> PostFields {
        guard let text = parameters.first("fields") else { return .all }
        var selected: PostFields = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces)
            guard let field = names.first(where: { $0.name == name })?.field, available.contains(field) else {
                let known = names.filter { available.contains($0.field) }.map(\.name).joined(separator: ", ")
                throw ValidationError(field: "fields", "must be a comma-separated list of \(known)")
            }
            selected.insert(field)
        }
        return selected
    }
}
