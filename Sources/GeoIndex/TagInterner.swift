/// Interns strings to small integers, so the index compares integers, not strings.
public struct Interner<ID: FixedWidthInteger & Sendable>: Sendable {
    private var idsByName: [String: ID] = [:]
    private var names: [String] = []

    public init() {}

    public mutating func intern(_ name: String) -> ID {
        if let id = idsByName[name] { return id }
        let id = ID(names.count)
        names.append(name)
        idsByName[name] = id
        return id
    }

    /// The id of a name already seen, or `nil`: a tag never stored matches no post.
    public func id(of name: String) -> ID? { idsByName[name] }

    public func name(of id: ID) -> String { names[Int(id)] }

    public var count: Int { names.count }
}

/// Tags as the index compares them.
public typealias TagInterner = Interner<TagID>
