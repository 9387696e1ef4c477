import NoticeBoardCore

/// `{"uuid", "major", "minor", "lat", "lon", "floor", "name"}`.
struct BeaconJSON: Encodable {
    var beacon: Beacon

    init(_ beacon: Beacon) { self.beacon = beacon }

    enum CodingKeys: String, CodingKey { case uuid, major, minor, lat, lon, floor, name }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(beacon.reference.uuid, forKey: .uuid)
        try container.encode(beacon.reference.major, forKey: .major)
        try container.encode(beacon.reference.minor, forKey: .minor)
        try container.encode(beacon.lat, forKey: .lat)
        try container.encode(beacon.lon, forKey: .lon)
        try container.encode(beacon.floor, forKey: .floor)
        try container.encode(beacon.name, forKey: .name)
    }
}
