import NIOCore
import PostgresNIO

/// A one-dimensional PostgreSQL array in the binary wire format, read element by element
/// without PostgresNIO's generic decoders: loading the index decodes every column of every
/// post, and the generic path spends most of its time looking up type metadata per element.
///
/// Layout: ndim, has-nulls flag, element type oid, then per dimension its length and lower
/// bound (all big-endian int32), then each element as a length (int32, -1 for NULL) and bytes.
struct BinaryArrayColumn {
    enum Failure: Error, CustomStringConvertible {
        case malformed(String)
        var description: String { switch self { case .malformed(let why): "malformed array column: \(why)" } }
    }

    /// Offsets and lengths of the elements inside `buffer`'s readable bytes (length -1 is NULL).
    private let buffer: ByteBuffer
    private var offsets: [Int32] = []
    private var lengths: [Int32] = []

    var count: Int { offsets.count }

    init(_ cell: PostgresCell) throws {
        guard cell.format == .binary else { throw Failure.malformed("column \(cell.columnName) is not in binary format") }
        buffer = cell.bytes ?? ByteBuffer()
        guard buffer.readableBytes > 0 else { return }  // NULL: an aggregate over no rows
        var reader = buffer
        guard let dimensions = reader.readInteger(as: Int32.self), reader.readInteger(as: Int32.self) != nil,
            reader.readInteger(as: UInt32.self) != nil
        else { throw Failure.malformed("short header") }
        guard dimensions <= 1 else { throw Failure.malformed("\(dimensions) dimensions") }
        guard dimensions == 1 else { return }
        guard let length = reader.readInteger(as: Int32.self), reader.readInteger(as: Int32.self) != nil, length >= 0 else {
            throw Failure.malformed("bad dimension")
        }
        offsets.reserveCapacity(Int(length))
        lengths.reserveCapacity(Int(length))
        for _ in 0..<length {
            guard let elementLength = reader.readInteger(as: Int32.self) else { throw Failure.malformed("short element") }
            offsets.append(Int32(reader.readerIndex - buffer.readerIndex))
            lengths.append(elementLength)
            if elementLength > 0 {
                guard reader.readableBytes >= Int(elementLength) else { throw Failure.malformed("element past the end") }
                reader.moveReaderIndex(forwardBy: Int(elementLength))
            }
        }
    }

    private func integerBits<Bits: FixedWidthInteger>(_ index: Int, as _: Bits.Type) -> Bits? {
        guard lengths[index] == Int32(MemoryLayout<Bits>.size) else { return nil }
        return buffer.getInteger(at: buffer.readerIndex + Int(offsets[index]), as: Bits.self)
    }

    /// `int8` elements; NULL as `nil`.
    func int64(_ index: Int) -> Int64? { integerBits(index, as: Int64.self) }

    /// `int2` elements; NULL as `nil`.
    func int16(_ index: Int) -> Int16? { integerBits(index, as: Int16.self) }

    /// `float8` elements; NULL as `nil`.
    func double(_ index: Int) -> Double? { integerBits(index, as: UInt64.self).map(Double.init(bitPattern:)) }

    /// `text` elements; NULL as `nil`.
    func string(_ index: Int) -> String? {
        guard lengths[index] >= 0 else { return nil }
        return buffer.getString(at: buffer.readerIndex + Int(offsets[index]), length: Int(lengths[index]))
    }

    /// `timestamptz` elements as milliseconds since 1970, rounded half away from zero like
    /// `(extract(epoch FROM t) * 1000)::int8` (the wire value is microseconds since 2000).
    func milliseconds(_ index: Int) -> Int64? {
        guard let microseconds = int64(index) else { return nil }
        let sinceEpoch = microseconds + 946_684_800_000_000
        return sinceEpoch >= 0 ? (sinceEpoch + 500) / 1000 : -((-sinceEpoch + 500) / 1000)
    }
}
