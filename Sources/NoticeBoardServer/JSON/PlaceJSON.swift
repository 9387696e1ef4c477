import NoticeBoardCore

/// `{"slug", "name", "polygon": [[lon, lat], …], "floors": [min, max] | null, "description", "postCount"}`.
struct PlaceJSON: Encodable {
    var place: Place
    var postCount: Int

    enum CodingKeys: String, CodingKey { case slug, name, polygon, floors, description, postCount }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(place.slug, forKey: .slug)
        try container.encode(place.name, forKey: .name)
        try container.encode(place.polygon.map { [$0.lon, $0.lat] }, forKey: .polygon)
        try container.encode(place.floors.map { [$0.lowerBound, $0.upperBound] }, forKey: .floors)
        try container.encode(place.description, forKey: .description)
        try container.encode(postCount, forKey: .postCount)
    }
}

/// `{"id", "place", "message", "createdAt", "until"}`.
struct AnnouncementJSON: Encodable {
    var announcement: Announcement

    enum CodingKeys: String, CodingKey { case id, place, message, createdAt, until }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(announcement.id, forKey: .id)
        try container.encode(announcement.place, forKey: .place)
        try container.encode(announcement.message, forKey: .message)
        try container.encode(Timestamp.format(milliseconds: announcement.createdAt), forKey: .createdAt)
        try container.encode(Timestamp.format(milliseconds: announcement.until), forKey: .until)
    }
}
