/// A target as its area's key in the `CircleGrid` or `BoxGrid`: the id above two bits, whether
/// the target names tags and whether it is a subscription. A negative id or one past 2⁶¹ has no
/// key, and its area goes to the areas' grid. Also the areas' tag masks: one bit a tag number,
/// modulo `tagBits`, and the last bit for a note's tag that no one names.
enum CircleKey {
    static let tagBits = 63

    static func key(_ target: DeliveryTarget, tagged: Bool) -> Int64? {
        let (id, kind): (Int64, Int64) =
            switch target {
            case .webhook(let id): (id, 0)
            case .subscription(let id): (id, 1)
            }
        guard id >= 0, id < 1 << 61 else { return nil }
        return id << 2 | (tagged ? 2 : 0) | kind
    }

    static func target(_ key: Int64) -> DeliveryTarget {
        key & 1 == 1 ? .subscription(key >> 2) : .webhook(key >> 2)
    }

    static func isTagged(_ key: Int64) -> Bool { key & 2 != 0 }
}
