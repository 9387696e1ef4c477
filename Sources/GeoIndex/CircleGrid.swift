import Foundation

/// Circles on the sphere filed for "which circles hold this point", with everything a match
/// needs kept inline in the cells, so a point scans a few contiguous arrays and follows no
/// handle to anything stored elsewhere.
///
/// Each circle goes into the finest cell size at which its surrounding box spans at most two
/// cells on each axis (three, at the coarse sizes), and into each of those (at most nine) cells.
/// A cell keeps its circles' centres as single-precision offsets from the cell's own centre (so
/// rounding moves a chord by millimetres, not metres), with each one's squared chord limit,
/// eight to a block for SIMD; and beside them what a match reports: the caller's key, the
/// instant the circle was made and a filter mask. A point within a hair of a circle's edge,
/// where single precision cannot decide, is measured as `Geodesy.distance(centre, point) <=
/// radius`, the definition every answer equals.
///
/// A removal moves the cell's last entry into the gap, and each circle remembers where its
/// entries are, so a circle comes and goes in constant time.
public struct CircleGrid: Sendable {
    /// Cell sides in degrees, finest first: 0.0005° (55 m) up to about 16°, each √2 times the last.
    /// Below 0.01° (1.1 km) a circle spans at most two cells on each axis, so a cell is one to
    /// one and a half of its diameters wide; from there on three, so it is a half to three
    /// quarters of one. A point's candidates grow with the square of the cell side: the coarse
    /// sizes, which offer the most, then offer about half as many for each match, for up to nine
    /// entries a circle where the fine sizes keep four.
    static let levels: GridLevels = {
        let sides = (0..<31).map { 0.0005 * pow(2, Double($0) / 2) }
        return GridLevels(cellDegrees: sides, maxSpans: sides.map { $0 < 0.01 ? 2 : 3 })
    }()

    /// The largest offset (in each unit-vector component) a cell's entries and points may have
    /// from its centre, a multiple of its side in radians; a circle that would exceed it goes
    /// into a coarser size. A point lies within 1.5 sides of its cell's centre, a filed circle's
    /// centre within 5.
    static let offsetBound: [Double] = levels.cellDegrees.map { 6 * Geodesy.radians($0) }

    /// How far single precision may put a squared chord from the double one, as a part of the
    /// limit and as an absolute amount a cell size allows; every comparison outside that band
    /// decides as `CircleTest`'s chord (and so the distance) would.
    static let relativeMargin: Float = 1e-5
    static let absoluteMargin: [Float] = offsetBound.map { bound in
        // Each component of the two offsets is rounded by at most 2⁻²⁴ of the bound, their
        // difference by that again; the chord is at most 2√3 bounds. Twice that, for the
        // double chord's own rounding and CircleTest's margin of 10⁻¹⁵.
        let component = 2 * bound * 0x1p-24 + 4e-16
        let chordError = 3.0.squareRoot() * component
        let band = 2 * (2 * 3.0.squareRoot() * bound) * chordError + chordError * chordError
        return Float(2 * band + 4e-15)
    }

    /// Eight entries' offsets and squared chord limits; an empty lane's limit is -∞, which
    /// nothing is within.
    struct Block: Sendable {
        var x = SIMD8<Float>(repeating: 0)
        var y = SIMD8<Float>(repeating: 0)
        var z = SIMD8<Float>(repeating: 0)
        var limit = SIMD8<Float>(repeating: -.infinity)
    }

    /// What a match reports and filters on; read only for the entries a point may be within.
    struct Entry: Sendable {
        var key: Int64
        var mask: UInt64
    }

    struct Cell: Sendable {
        var key: Int64
        var anchor: UnitVector
        var blocks: [Block] = []
        var entries: [Entry] = []
        /// Each entry's circle, for its edge and for moving it.
        var handles: [Int32] = []
        /// No entry was made later: a point at or after it need not look up the entries' `since`.
        var latestSince = Int64.min
    }

    /// A circle as filed: its definition (for points near its edge), when it was made, and its
    /// entries' places.
    struct Filing: Sendable {
        var lat: Double
        var lon: Double
        var radius: Double
        var since: Int64
        var cells = InlineArray<9, Int32>(repeating: -1)
        var positions = InlineArray<9, Int32>(repeating: -1)
        var count: Int32 = 0
    }

    var cellNumbers = CellTable()
    var cells: [Cell] = []
    /// How many cells each size has, so a point looks up only the sizes that hold circles.
    var cellsPerLevel = [Int32](repeating: 0, count: CircleGrid.levels.cellDegrees.count)
    private var freeCells: [Int32] = []
    /// By handle; nil for a handle not filed here.
    var filings: [Filing?] = []

    public init() {}

    /// Files a circle under `handle` (not already filed), matched by points at or after `since`
    /// whose mask shares a bit with `mask`, reported as `key`. Returns false, filing nothing,
    /// for a circle too large for the coarsest cells or reaching a pole: the caller keeps it.
    public mutating func insert(
        _ handle: Int32, lat: Double, lon: Double, radius: Double, key: Int64, since: Int64, mask: UInt64
    ) -> Bool {
        let box = AreaGrid.box(aroundCircle: lat, lon: lon, radius: radius)
        guard box.west != -180 || box.east != 180, let placement = Self.levels.placement(of: box) else { return false }
        let centre = UnitVector(lat: lat, lon: lon)
        let limit = Self.squaredChord(radius: radius)
        // Cells are made only once the circle is known to fit them all.
        var anchors: [UnitVector] = []
        for cell in placement.cells {
            let anchor = Self.anchor(level: placement.level, row: cell.row, column: cell.column)
            let offset = max(abs(centre.x - anchor.x), abs(centre.y - anchor.y), abs(centre.z - anchor.z))
            guard offset <= Self.offsetBound[placement.level] else { return false }
            anchors.append(anchor)
        }
        if filings.count <= Int(handle) { filings += Array(repeating: nil, count: Int(handle) + 1 - filings.count) }
        precondition(filings[Int(handle)] == nil, "handle \(handle) is filed already")
        var filing = Filing(lat: lat, lon: lon, radius: radius, since: since)
        let entry = Entry(key: key, mask: mask)
        for (slot, cell) in placement.cells.enumerated() {
            let number = cellNumber(GridLevels.key(level: placement.level, row: cell.row, column: cell.column), anchor: anchors[slot])
            let anchor = anchors[slot]
            let position = cells[Int(number)].append(
                entry, handle: handle, since: since, x: Float(centre.x - anchor.x), y: Float(centre.y - anchor.y), z: Float(centre.z - anchor.z), limit: limit)
            filing.cells[slot] = number
            filing.positions[slot] = position
        }
        filing.count = Int32(placement.cells.count)
        filings[Int(handle)] = filing
        return true
    }

    /// Forgets the circle filed under `handle`; returns false, doing nothing, for a handle not
    /// filed here.
    @discardableResult
    public mutating func remove(_ handle: Int32) -> Bool {
        guard Int(handle) < filings.count, let filing = filings[Int(handle)] else { return false }
        filings[Int(handle)] = nil
        for slot in 0..<Int(filing.count) {
            let number = filing.cells[slot]
            if let moved = cells[Int(number)].remove(at: Int(filing.positions[slot])) {
                // The cell's last entry now sits where the removed one was.
                let movedHandle = Int(cells[Int(number)].handles[Int(filing.positions[slot])])
                for other in 0..<Int(filings[movedHandle]!.count) where filings[movedHandle]!.cells[other] == number {
                    filings[movedHandle]!.positions[other] = Int32(moved)
                }
            }
            if cells[Int(number)].entries.isEmpty {
                cellNumbers.remove(cells[Int(number)].key)
                cellsPerLevel[GridLevels.level(ofKey: cells[Int(number)].key)] -= 1
                cells[Int(number)] = Cell(key: 0, anchor: UnitVector(lat: 0, lon: 0))
                freeCells.append(number)
            }
        }
        return true
    }

    /// The cell under `key`, made (empty, around `anchor`) if there is none.
    private mutating func cellNumber(_ key: Int64, anchor: UnitVector) -> Int32 {
        if let number = cellNumbers[key] { return number }
        let cell = Cell(key: key, anchor: anchor)
        let number: Int32
        if let free = freeCells.popLast() {
            number = free
            cells[Int(number)] = cell
        } else {
            number = Int32(cells.count)
            cells.append(cell)
        }
        cellNumbers.insert(key, number: number)
        cellsPerLevel[GridLevels.level(ofKey: key)] += 1
        return number
    }

    /// The centre of a cell, which its entries' and points' offsets are taken from; clamped to
    /// the globe where the last row is cut short.
    static func anchor(level: Int, row: Int, column: Int) -> UnitVector {
        let size = levels.cellDegrees[level]
        return UnitVector(lat: min(90, -90 + (Double(row) + 0.5) * size), lon: -180 + (Double(column) + 0.5) * size)
    }

    /// 4 sin²(r / 2R): the squared chord of a great-circle distance, as `CircleTest` has it.
    static func squaredChord(radius: Double) -> Double {
        let half = sin(min(radius / Geodesy.earthRadiusMeters, .pi) / 2)
        return 4 * half * half
    }
}

extension CircleGrid.Cell {
    /// Appends an entry; returns its position.
    mutating func append(_ entry: CircleGrid.Entry, handle: Int32, since: Int64, x: Float, y: Float, z: Float, limit: Double) -> Int32 {
        let position = entries.count
        if position % 8 == 0 { blocks.append(CircleGrid.Block()) }
        let lane = position % 8
        blocks[position / 8].x[lane] = x
        blocks[position / 8].y[lane] = y
        blocks[position / 8].z[lane] = z
        blocks[position / 8].limit[lane] = Float(limit)
        entries.append(entry)
        handles.append(handle)
        latestSince = max(latestSince, since)
        return Int32(position)
    }

    /// Removes the entry at `position` by moving the last one into it; returns the position the
    /// last one moved to, or nil when the removed one was the last.
    mutating func remove(at position: Int) -> Int? {
        let last = entries.count - 1
        var moved: Int?
        if position != last {
            let (from, to) = ((last / 8, last % 8), (position / 8, position % 8))
            blocks[to.0].x[to.1] = blocks[from.0].x[from.1]
            blocks[to.0].y[to.1] = blocks[from.0].y[from.1]
            blocks[to.0].z[to.1] = blocks[from.0].z[from.1]
            blocks[to.0].limit[to.1] = blocks[from.0].limit[from.1]
            entries[position] = entries[last]
            handles[position] = handles[last]
            moved = position
        }
        entries.removeLast()
        handles.removeLast()
        if last % 8 == 0 {
            blocks.removeLast()
        } else {
            blocks[last / 8].x[last % 8] = 0
            blocks[last / 8].y[last % 8] = 0
            blocks[last / 8].z[last % 8] = 0
            blocks[last / 8].limit[last % 8] = -.infinity
        }
        return moved
    }
}
