/// Splits RFC 4180 CSV into records, fed in chunks of any size so a file of any length is read
/// in constant memory: quoted fields may hold commas, doubled quotes and line breaks, and a
/// chunk boundary may fall anywhere, even inside a UTF-8 character.
public struct CSVRecordReader: Sendable {
    /// One record and the line (1-based) it starts on, for error reports.
    public struct Record: Sendable, Equatable {
        public var line: Int
        public var fields: [String]
    }

    private var field: [UInt8] = []
    private var fields: [String] = []
    private var inQuotes = false
    private var quoteJustClosed = false
    private var previousWasCarriageReturn = false
    private var line = 1
    private var recordLine = 1
    private var recordHasContent = false

    public init() {}

    /// Consumes `bytes` and hands over every record completed by them.
    public mutating func feed(_ bytes: some Sequence<UInt8>, emit: (Record) throws -> Void) rethrows {
        for byte in bytes {
            if byte == 0x0A, previousWasCarriageReturn {  // the \n of \r\n: already ended the line
                previousWasCarriageReturn = false
                continue
            }
            previousWasCarriageReturn = byte == 0x0D
            if inQuotes {
                if byte == 0x22 {
                    inQuotes = false
                    quoteJustClosed = true
                } else {
                    if byte == 0x0A || byte == 0x0D { line += 1 }
                    field.append(byte == 0x0D ? 0x0A : byte)
                }
                continue
            }
            switch byte {
            case 0x22:
                // `""` inside a quoted field is one quote; a quote elsewhere opens quoting.
                if quoteJustClosed { field.append(0x22) }
                inQuotes = true
                quoteJustClosed = false
                recordHasContent = true
            case 0x2C:
                endField()
                recordHasContent = true
            case 0x0A, 0x0D:
                line += 1
                try endRecord(emit)
            default:
                field.append(byte)
                quoteJustClosed = false
                recordHasContent = true
            }
        }
    }

    /// Hands over the last record when the input does not end with a line break.
    public mutating func finish(emit: (Record) throws -> Void) rethrows {
        try endRecord(emit)
    }

    private mutating func endField() {
        fields.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
        quoteJustClosed = false
    }

    private mutating func endRecord(_ emit: (Record) throws -> Void) rethrows {
        defer { recordLine = line }
        guard recordHasContent || !field.isEmpty else { return }  // blank lines are skipped
        endField()
        let record = Record(line: recordLine, fields: fields)
        fields.removeAll(keepingCapacity: true)
        recordHasContent = false
        inQuotes = false
        try emit(record)
    }
}

/// Splits newline-delimited text (NDJSON) into lines, fed in chunks like `CSVRecordReader`.
public struct LineRecordReader: Sendable {
    private var pending: [UInt8] = []
    private var line = 0

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>, emit: (_ line: Int, _ text: [UInt8]) throws -> Void) rethrows {
        for byte in bytes {
            if byte == 0x0A {
                line += 1
                try emitPending(emit)
            } else {
                pending.append(byte)
            }
        }
    }

    public mutating func finish(emit: (_ line: Int, _ text: [UInt8]) throws -> Void) rethrows {
        line += 1
        try emitPending(emit)
    }

    private mutating func emitPending(_ emit: (Int, [UInt8]) throws -> Void) rethrows {
        defer { pending.removeAll(keepingCapacity: true) }
        if pending.last == 0x0D { pending.removeLast() }
        guard pending.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }  // blank line
        try emit(line, pending)
    }
}
