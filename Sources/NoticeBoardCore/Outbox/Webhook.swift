/// A moderator's subscription of an integrator's URL to new and removed notes in an area.
public struct Webhook: Sendable, Equatable {
    public var id: Int64
    public var url: String
    /// The HMAC-SHA256 key of `X-NoticeBoard-Signature`; never written out again.
    public var secret: String
    public var area: DeliveryArea
    public var tags: [String]
    public var createdAt: Int64
    public var createdBy: String

    public init(id: Int64, url: String, secret: String, area: DeliveryArea, tags: [String], createdAt: Int64, createdBy: String) {
        self.id = id
        self.url = url
        self.secret = secret
        self.area = area
        self.tags = tags
        self.createdAt = createdAt
        self.createdBy = createdBy
    }
}

/// `POST /api/v1/moderation/webhooks`' body, validated (the URL's host is checked by the server's
/// host policy, which needs name resolution).
public struct WebhookDraft: Sendable, Equatable {
    public var url: DeliveryURL
    public var secret: String
    public var area: DeliveryArea
    public var tags: [String]

    public init(json: JSONValue) throws(ValidationError) {
        guard case .object(let members) = json else { throw ValidationError(field: nil, "the body must be a JSON object") }
        let fields = JSONFields(members)
        url = try DeliveryURL(try fields.requiredString("url"), field: "url")
        let secret = try fields.requiredString("secret")
        // Counted as JSON Schema's maxLength counts (code points), not as grapheme clusters.
        guard (16...200).contains(secret.unicodeScalars.count) else { throw ValidationError(field: "secret", "must be 16 to 200 characters") }
        self.secret = secret
        area = try DeliveryArea(json: members["area"], maxRadius: 50_000)
        tags = try DeliveryTags.parse(members["tags"])
    }
}

/// An absolute `http` or `https` URL to deliver to: no user name or password, a host, at most
/// 2000 characters.
public struct DeliveryURL: Sendable, Equatable {
    public var text: String
    public var isSecure: Bool
    public var host: String
    public var port: Int
    /// `scheme://host[:port]`, the audience of a VAPID token.
    public var origin: String

    public init(_ text: String, field: String) throws(ValidationError) {
        guard text.utf8.count <= 2000 else { throw ValidationError(field: field, "must be at most 2000 characters") }
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") { scheme = "https" } else if lowered.hasPrefix("http://") { scheme = "http" } else {
            throw ValidationError(field: field, "must be an http or https URL")
        }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0.value > 0x7E }) else {
            throw ValidationError(field: field, "must not contain spaces or control characters (encode them)")
        }
        let rest = text.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { throw ValidationError(field: field, "must not carry a user name or password") }
        var host = Substring(authority)
        var port = scheme == "https" ? 443 : 80
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw ValidationError(field: field, "has a malformed IPv6 host") }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()), (1...65535).contains(number) else {
                    throw ValidationError(field: field, "has a malformed port")
                }
                port = number
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]), (1...65535).contains(number) else {
                throw ValidationError(field: field, "has a malformed port")
            }
            port = number
            host = host[..<colon]
        }
        guard !host.isEmpty else { throw ValidationError(field: field, "must name a host") }
        self.text = text
        isSecure = scheme == "https"
        self.host = host.lowercased()
        self.port = port
        let defaultPort = isSecure ? 443 : 80
        let hostText = self.host.contains(":") ? "[\(self.host)]" : self.host
        origin = "\(scheme)://\(hostText)" + (port == defaultPort ? "" : ":\(port)")
    }
}
