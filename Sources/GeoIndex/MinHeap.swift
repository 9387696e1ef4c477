/// A binary min-heap: the frontier of a best-first search.
struct MinHeap<Element> {
    private var items: [Element] = []
    private let less: (Element, Element) -> Bool

    init(less: @escaping (Element, Element) -> Bool) { self.less = less }

    var isEmpty: Bool { items.isEmpty }

    mutating func push(_ element: Element) {
        items.append(element)
        var child = items.count - 1
        while child > 0 {
            let up = (child - 1) / 2
            guard less(items[child], items[up]) else { break }
            items.swapAt(child, up)
            child = up
        }
    }

    mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        let top = items[0]
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var node = 0
            while true {
                let left = 2 * node + 1, right = left + 1
                var smallest = node
                if left < items.count, less(items[left], items[smallest]) { smallest = left }
                if right < items.count, less(items[right], items[smallest]) { smallest = right }
                if smallest == node { break }
                items.swapAt(node, smallest)
                node = smallest
            }
        }
        return top
    }
}
