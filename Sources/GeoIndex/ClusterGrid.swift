import Foundation

/// Map clusters: posts grouped in square Web-Mercator cells of a zoom level, each cluster at
/// its members' centroid (averaged as unit vectors, so clusters straddling ±180 sit right).
public struct Cluster: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var count: Int
    /// The post's id when the cluster holds exactly one.
    public var postId: Int64?

    public init(lat: Double, lon: Double, count: Int, postId: Int64?) {
        (self.lat, self.lon, self.count, self.postId) = (lat, lon, count, postId)
    }
}

public struct ClusterGrid: Sendable {
    /// Cells per 256-pixel tile side: 4 makes a cluster cell 64 pixels wide on screen.
    public static let cellsPerTile = 4
    public static let maxClusters = 1000

    /// Accumulates one cell's members.
    struct Accumulator {
        var count = 0
        var x = 0.0, y = 0.0, z = 0.0
        /// The one member of a cell that has one, which the cluster then names.
        var onlyPost: (id: Int64, lat: Double, lon: Double)?

        mutating func add(id: Int64, lat: Double, lon: Double) {
            count += 1
            let vector = UnitVector(lat: lat, lon: lon)
            x += vector.x
            y += vector.y
            z += vector.z
            onlyPost = count == 1 ? (id, lat, lon) : nil
        }

        mutating func merge(_ other: Accumulator) {
            // A lone post merged into an empty cell is still that post.
            onlyPost = count == 0 ? other.onlyPost : nil
            count += other.count
            x += other.x
            y += other.y
            z += other.z
        }

        var cluster: Cluster {
            if count == 1, let post = onlyPost { return Cluster(lat: post.lat, lon: post.lon, count: 1, postId: post.id) }
            let lat = Geodesy.degrees(atan2(z, (x * x + y * y).squareRoot()))
            let lon = (x == 0 && y == 0) ? 0 : Geodesy.degrees(atan2(y, x))
            return Cluster(lat: lat, lon: lon, count: count, postId: nil)
        }
    }

    let cellsPerSide: Int
    private var cells: [Int: Accumulator] = [:]
    /// Posts added one by one come a leaf at a time, and a leaf's posts mostly share a cell:
    /// they gather here and reach the table when the cell changes, not a hash lookup each.
    private var pendingKey = -1
    private var pending = Accumulator()

    public init(zoom: Int) {
        cellsPerSide = (1 << min(max(zoom, 0), 22)) * Self.cellsPerTile
    }

    public mutating func add(_ post: IndexedPost) {
        add(id: post.id, lat: post.lat, lon: post.lon)
    }

    /// Adds a post from its id and coordinates, all a cluster needs of it.
    mutating func add(id: Int64, lat: Double, lon: Double) {
        add(id: id, lat: lat, lon: lon, key: key(lat: lat, lon: lon, side: cellsPerSide))
    }

    /// The same, with the cell the caller has already computed with `key(of:)`.
    mutating func add(id: Int64, lat: Double, lon: Double, key: Int) {
        if key != pendingKey {
            if pending.count > 0 { cells[pendingKey, default: Accumulator()].merge(pending) }
            pendingKey = key
            pending = Accumulator()
        }
        pending.add(id: id, lat: lat, lon: lon)
    }

    /// Adds a whole node's posts at once if they all fall in one cell; false if they do not.
    mutating func addWhole(_ summary: NodeSummary) -> Bool {
        let corner = key(lat: summary.minLat, lon: summary.minLon, side: cellsPerSide)
        // The cell index grows with longitude and falls with latitude: two opposite corners
        // in one cell put the whole box in it. 180 shares the first column with -180.
        guard summary.maxLon < 180, corner == key(lat: summary.maxLat, lon: summary.maxLon, side: cellsPerSide) else {
            return false
        }
        var whole = Accumulator()
        whole.count = summary.count
        (whole.x, whole.y, whole.z) = (summary.sumX, summary.sumY, summary.sumZ)
        cells[corner, default: Accumulator()].merge(whole)
        return true
    }

    /// The clusters, coarsening the grid (each step merging 2×2 cells) until there are at most 1000.
    public func clusters() -> [Cluster] {
        var side = cellsPerSide
        var current = cells
        if pending.count > 0 { current[pendingKey, default: Accumulator()].merge(pending) }
        while current.count > Self.maxClusters, side > 1 {
            var coarser: [Int: Accumulator] = [:]
            for (key, accumulator) in current {
                let (column, row) = (key % side, key / side)
                coarser[(row / 2) * (side / 2) + column / 2, default: Accumulator()].merge(accumulator)
            }
            side /= 2
            current = coarser
        }
        return current.sorted { $0.key < $1.key }.map(\.value.cluster)
    }

    /// Adds a whole cell's totals (from the count pyramid).
    mutating func addCell(_ key: Int, count: Int, x: Double, y: Double, z: Double) {
        var whole = Accumulator()
        whole.count = count
        (whole.x, whole.y, whole.z) = (x, y, z)
        cells[key, default: Accumulator()].merge(whole)
    }

    func key(of post: IndexedPost) -> Int { key(lat: post.lat, lon: post.lon, side: cellsPerSide) }

    private func key(lat: Double, lon: Double, side: Int) -> Int {
        let (column, row) = Self.cell(lat: lat, lon: lon, side: side)
        return row * side + column
    }

    /// The Web-Mercator cell of a point on a grid of `side` × `side` cells. Side is a power of
    /// two, so the cell on a grid half as fine is this one's column and row halved.
    static func cell(lat: Double, lon: Double, side: Int) -> (column: Int, row: Int) {
        // 180 and -180 are one meridian: both go to the first column.
        let x = ((lon >= 180 ? lon - 360 : lon) + 180) / 360
        let clampedLat = min(max(lat, -85.05112878), 85.05112878)
        let sinLat = sin(Geodesy.radians(clampedLat))
        let y = 0.5 - log((1 + sinLat) / (1 - sinLat)) / (4 * .pi)
        return (min(side - 1, max(0, Int(x * Double(side)))), min(side - 1, max(0, Int(y * Double(side)))))
    }

    /// A cell's extent in degrees; the first and last rows reach the poles (posts beyond the
    /// Mercator limit are clamped into them).
    static func extent(column: Int, row: Int, side: Int) -> GeoBox {
        func latitude(_ y: Double) -> Double { Geodesy.degrees(atan(sinh(.pi * (1 - 2 * y)))) }
        let width = 360 / Double(side)
        return GeoBox(
            west: -180 + Double(column) * width, south: row == side - 1 ? -90 : latitude(Double(row + 1) / Double(side)),
            east: -180 + Double(column + 1) * width, north: row == 0 ? 90 : latitude(Double(row) / Double(side)))
    }
}
