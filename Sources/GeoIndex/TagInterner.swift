/// Interns tag strings to small integers so the index compares integers, not strings.
public struct TagInterner: Sendable {
    private var idsByName: [String: TagID] = [:]
    private var names: [String] = []

    public init() {}

    public mutating func intern(_ name: String) -> TagID {
        if let id = idsByName[name] { return id }
        let id = TagID(names.count)
        names.append(name)
        idsByName[name] = id
        return id
    }

    /// The id of a tag already seen, or `nil`: a tag never stored matches no post.
    public func id(of name: String) -> TagID? { idsByName[name] }

    public func name(of id: TagID) -> String { names[Int(id)] }
}
