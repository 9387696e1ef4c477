/// A ring's edges in a binary tree of boxes over runs of consecutive edges. Consecutive edges
/// lie close together, so the boxes are tight, and "does any edge meet this box" descends only
/// where one may: a few dozen box tests, not one per edge.
struct EdgeHierarchy: Sendable {
    static let edgesPerLeaf = 4
    let edgeCount: Int
    /// Leaves start here in the implicit tree (node 1 is the root; node k's children are 2k, 2k+1).
    let firstLeaf: Int
    let minX: [Int64], maxX: [Int64], minY: [Int64], maxY: [Int64]

    init(xs: [Int64], ys: [Int64]) {
        edgeCount = xs.count
        let leaves = (xs.count + Self.edgesPerLeaf - 1) / Self.edgesPerLeaf
        var first = 1
        while first < leaves { first *= 2 }
        firstLeaf = first
        var minX = [Int64](repeating: .max, count: 2 * first), maxX = [Int64](repeating: .min, count: 2 * first)
        var minY = [Int64](repeating: .max, count: 2 * first), maxY = [Int64](repeating: .min, count: 2 * first)
        for i in 0..<xs.count {
            let j = i + 1 == xs.count ? 0 : i + 1
            let node = first + i / Self.edgesPerLeaf
            minX[node] = min(minX[node], xs[i], xs[j]); maxX[node] = max(maxX[node], xs[i], xs[j])
            minY[node] = min(minY[node], ys[i], ys[j]); maxY[node] = max(maxY[node], ys[i], ys[j])
        }
        for node in stride(from: first - 1, through: 1, by: -1) {
            minX[node] = min(minX[2 * node], minX[2 * node + 1]); maxX[node] = max(maxX[2 * node], maxX[2 * node + 1])
            minY[node] = min(minY[2 * node], minY[2 * node + 1]); maxY[node] = max(maxY[2 * node], maxY[2 * node + 1])
        }
        (self.minX, self.maxX, self.minY, self.maxY) = (minX, maxX, minY, maxY)
    }

    /// Whether `meets` holds for some edge whose run's box overlaps the closed box.
    func anyEdge(overlapping x0: Int64, _ y0: Int64, _ x1: Int64, _ y1: Int64, where meets: (Int) -> Bool) -> Bool {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 128) { stack in
            var top = 0
            stack[0] = 1
            top = 1
            while top > 0 {
                top -= 1
                let node = stack[top]
                guard maxX[node] >= x0, minX[node] <= x1, maxY[node] >= y0, minY[node] <= y1 else { continue }
                if node >= firstLeaf {
                    let start = (node - firstLeaf) * Self.edgesPerLeaf
                    for edge in start..<min(start + Self.edgesPerLeaf, edgeCount) where meets(edge) { return true }
                } else {
                    stack[top] = 2 * node + 1
                    stack[top + 1] = 2 * node
                    top += 2
                }
            }
            return false
        }
    }
}
