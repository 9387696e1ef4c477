import NoticeBoardCore

/// A webhook as moderators see it: everything but its secret.
struct WebhookJSON: Encodable {
    let webhook: Webhook

    enum CodingKeys: String, CodingKey { case id, url, area, tags, createdAt, createdBy }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(webhook.id, forKey: .id)
        try container.encode(webhook.url, forKey: .url)
        try container.encode(AreaJSON(area: webhook.area), forKey: .area)
        try container.encode(webhook.tags, forKey: .tags)
        try container.encode(Timestamp.format(milliseconds: webhook.createdAt), forKey: .createdAt)
        try container.encode(webhook.createdBy, forKey: .createdBy)
    }
}

/// `{"lat","lon","radius"}`, `{"bbox": [W,S,E,N]}` or `{"place"}`.
struct AreaJSON: Encodable {
    let area: DeliveryArea

    enum CodingKeys: String, CodingKey { case lat, lon, radius, bbox, place }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch area {
        case .circle(let lat, let lon, let radius):
            try container.encode(lat, forKey: .lat)
            try container.encode(lon, forKey: .lon)
            try container.encode(radius, forKey: .radius)
        case .box(let box):
            try container.encode([box.west, box.south, box.east, box.north], forKey: .bbox)
        case .place(let slug):
            try container.encode(slug, forKey: .place)
        }
    }
}

/// One attempt history entry: `deliveryId`, `event`, `postId`, `attempts`, `status`, `lastError`.
struct DeliveryJSON: Encodable {
    let record: DeliveryRecord

    enum CodingKeys: String, CodingKey { case deliveryId, event, postId, attempts, status, lastError, createdAt, lastAttemptAt, nextAttemptAt }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(record.deliveryId, forKey: .deliveryId)
        try container.encode(record.event.rawValue, forKey: .event)
        try container.encode(record.postId, forKey: .postId)
        try container.encode(record.attempts, forKey: .attempts)
        try container.encode(record.status.rawValue, forKey: .status)
        try container.encode(record.lastError, forKey: .lastError)
        try container.encode(Timestamp.format(milliseconds: record.createdAt), forKey: .createdAt)
        try container.encode(record.lastAttemptAt.map { Timestamp.format(milliseconds: $0) }, forKey: .lastAttemptAt)
        try container.encode(record.nextAttemptAt.map { Timestamp.format(milliseconds: $0) }, forKey: .nextAttemptAt)
    }
}
