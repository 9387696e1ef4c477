/// Splits RFC 4180 CSV into records, fed in chunks of any size so a file of any length is read
/// in constant memory: quoted fields may hold commas, doubled quotes and line breaks, and a
/// chunk boundary may fall anywhere, even inside a UTF-8 character.
public struct CSVRecordReader: Sendable {
    /// One record and the line (1-based) it starts on, for error reports.
    public struct Record: Sendable, Equatable {
        public var line: Int
        public var fields: [String]

        public init(line: Int, fields: [String]) {
            self.line = line
            self.fields = fields
        }
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
        let fed: Void? = try bytes.withContiguousStorageIfAvailable { try feed(UnsafeRawBufferPointer($0), emit: emit) }
        if fed == nil { try Array(bytes).withUnsafeBytes { try feed($0, emit: emit) } }
    }

    /// Consumes `bytes` and hands over every record completed by them. Runs of plain bytes are
    /// copied whole: this reads every byte of an imported file.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (Record) throws -> Void) rethrows {
        var index = 0
        let end = bytes.count
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A, previousWasCarriageReturn {  // the \n of \r\n: already ended the line
                previousWasCarriageReturn = false
                index += 1
                continue
            }
            previousWasCarriageReturn = byte == 0x0D
            if inQuotes {
                if byte == 0x22 {
                    inQuotes = false
                    quoteJustClosed = true
                    index += 1
                } else if byte == 0x0A || byte == 0x0D {
                    line += 1
                    field.append(0x0A)
                    index += 1
                } else {
                    let start = index
                    index += 1
                    while index < end, bytes[index] != 0x22, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
                    field.append(contentsOf: bytes[start..<index])
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
                index += 1
            case 0x2C:
                endField()
                recordHasContent = true
                index += 1
            case 0x0A, 0x0D:
                line += 1
                index += 1
                try endRecord(emit)
            default:
                let start = index
                index += 1
                while index < end, !Self.endsPlainRun(bytes[index]) { index += 1 }
                field.append(contentsOf: bytes[start..<index])
                quoteJustClosed = false
                recordHasContent = true
            }
        }
    }

    /// A quote, comma or line break: what ends a run of an unquoted field's bytes.
    private static func endsPlainRun(_ byte: UInt8) -> Bool {
        byte == 0x22 || byte == 0x2C || byte == 0x0A || byte == 0x0D
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
