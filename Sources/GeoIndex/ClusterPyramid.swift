/// Per-cell totals of every post for the zoomed-out map: at each zoom up to `maxZoom`, the
/// number of posts in each cluster cell and the sum of their unit vectors, kept in step with
/// every insert and removal. A zoomed-out view without filters reads whole cells from here and
/// walks the tree only for the cells it cuts, instead of visiting every post of every leaf
/// that straddles a cell line.
///
/// Flat arrays, row-major as `ClusterGrid` keys its cells: a fixed size, whatever the number
/// of posts. Each further zoom would quadruple it for views that cover a country.
struct ClusterPyramid: Sendable {
    static let maxZoom = 5

    struct Totals: Sendable {
        var count: Int32 = 0
        var x = 0.0, y = 0.0, z = 0.0

        mutating func add(_ v: UnitVector, weight: Int32) {
            count += weight
            x += Double(weight) * v.x
            y += Double(weight) * v.y
            z += Double(weight) * v.z
        }

        mutating func add(_ other: Totals) {
            count += other.count
            x += other.x
            y += other.y
            z += other.z
        }
    }

    /// `levels[zoom]` holds `side(zoom)²` cells; empty until the first post arrives.
    private(set) var levels: [[Totals]] = []

    static func side(_ zoom: Int) -> Int { (1 << zoom) * ClusterGrid.cellsPerTile }

    private static func emptyLevels() -> [[Totals]] {
        (0...maxZoom).map { Array(repeating: Totals(), count: side($0) * side($0)) }
    }

    init() {}

    /// The totals of many posts at once: each post touches only the finest zoom, and each
    /// coarser cell is the sum of the four beneath it, which is far cheaper than updating
    /// every zoom post by post.
    init(_ posts: [IndexedPost], _ vectors: [UnitVector]) {
        guard !posts.isEmpty else { return }
        levels = Self.emptyLevels()
        let side = Self.side(Self.maxZoom)
        levels[Self.maxZoom].withUnsafeMutableBufferPointer { finest in
            for (post, v) in zip(posts, vectors) {
                let cell = ClusterGrid.cell(lat: post.lat, lon: post.lon, side: side)
                finest[cell.row * side + cell.column].add(v, weight: 1)
            }
        }
        for zoom in stride(from: Self.maxZoom - 1, through: 0, by: -1) {
            let side = Self.side(zoom), finer = levels[zoom + 1]
            for row in 0..<side {
                for column in 0..<side {
                    var sum = Totals()
                    for (dRow, dColumn) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                        sum.add(finer[(2 * row + dRow) * 2 * side + 2 * column + dColumn])
                    }
                    levels[zoom][row * side + column] = sum
                }
            }
        }
    }

    mutating func add(_ post: IndexedPost, _ v: UnitVector) { change(post, v, by: 1) }

    mutating func remove(_ post: IndexedPost, _ v: UnitVector) { change(post, v, by: -1) }

    private mutating func change(_ post: IndexedPost, _ v: UnitVector, by sign: Int32) {
        if levels.isEmpty { levels = Self.emptyLevels() }
        let finest = ClusterGrid.cell(lat: post.lat, lon: post.lon, side: Self.side(Self.maxZoom))
        for zoom in 0...Self.maxZoom {
            let shift = Self.maxZoom - zoom
            levels[zoom][(finest.row >> shift) * Self.side(zoom) + (finest.column >> shift)].add(v, weight: sign)
        }
    }

    /// Cells of a zoom with posts: those wholly inside the box (with more than one post, whose
    /// position would otherwise be the post's own) go to the grid as totals; the rest are
    /// returned, for the caller to count post by post.
    func addCells(in box: GeoBox, zoom: Int, to grid: inout ClusterGrid) -> (total: Int, cut: [(key: Int, extent: GeoBox)]) {
        guard zoom <= Self.maxZoom, !levels.isEmpty else { return (0, []) }
        let side = Self.side(zoom)
        var total = 0
        var cut: [(key: Int, extent: GeoBox)] = []
        for (key, totals) in levels[zoom].enumerated() where totals.count > 0 {
            let extent = ClusterGrid.extent(column: key % side, row: key / side, side: side)
            if totals.count > 1, Self.covers(box, extent) {
                grid.addCell(key, count: Int(totals.count), x: totals.x, y: totals.y, z: totals.z)
                total += Int(totals.count)
            } else if Self.mayOverlap(box, extent) {
                cut.append((key, extent))
            }
        }
        return (total, cut)
    }

    /// Whether the box holds the whole cell, with a margin: a post's cell comes from rounded
    /// Mercator arithmetic, so a cell edge that merely touches the box's edge counts as cut.
    static func covers(_ box: GeoBox, _ cell: GeoBox) -> Bool {
        let margin = 1e-9
        guard box.south <= -90 || cell.south >= box.south + margin, box.north >= 90 || cell.north <= box.north - margin else {
            return false
        }
        return box.nonCrossingParts.contains { part in
            (part.west <= -180 || cell.west >= part.west + margin) && (part.east >= 180 || cell.east <= part.east - margin)
        }
    }

    /// Whether the cell, widened by a margin, may share a point with the box.
    static func mayOverlap(_ box: GeoBox, _ cell: GeoBox) -> Bool {
        let margin = 1e-6
        guard cell.north + margin >= box.south, cell.south - margin <= box.north else { return false }
        // The first column also holds posts at 180, which is -180.
        let touchesAntimeridian = cell.west <= -180 || cell.east >= 180
        return box.nonCrossingParts.contains { part in
            (cell.east + margin >= part.west && cell.west - margin <= part.east) || (touchesAntimeridian && (part.east >= 180 || part.west <= -180))
        }
    }

    var bytes: Int { levels.reduce(0) { $0 + $1.capacity * MemoryLayout<Totals>.stride } }
}
