import NIOCore

/// Follows a WebSocket's inbound frames by their headers alone and tells when one arrives
/// unmasked: RFC 6455 (5.1) requires the server to close such a connection, and the frame
/// decoder in front of the walk unmasks without saying whether there was a mask.
struct ClientFrameMasks {
    /// The current frame's header so far (at most 14 bytes).
    private var header: [UInt8] = []
    /// The current frame's payload bytes still to pass.
    private var payloadLeft: UInt64 = 0

    /// Reads on through `bytes`; false as soon as a frame header without a mask is complete.
    mutating func admit(_ bytes: ByteBufferView) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if payloadLeft > 0 {
                let skipped = min(UInt64(bytes.endIndex - index), payloadLeft)
                index += Int(skipped)
                payloadLeft -= skipped
                continue
            }
            header.append(bytes[index])
            index += 1
            guard header.count >= 2 else { continue }
            guard header[1] & 0x80 != 0 else { return false }
            let lengthCode = header[1] & 0x7F
            let extendedLength = lengthCode == 126 ? 2 : lengthCode == 127 ? 8 : 0
            guard header.count == 2 + extendedLength + 4 else { continue }
            payloadLeft = extendedLength == 0 ? UInt64(lengthCode) : header[2..<(2 + extendedLength)].reduce(0) { $0 << 8 | UInt64($1) }
            header.removeAll(keepingCapacity: true)
        }
        return true
    }
}

/// The bytes a client sent after its first request head, kept until the answer shows whether the
/// connection became a WebSocket: a client may send its first frames right behind the upgrade
/// request, and they must be checked from their first byte.
struct BytesAfterHead {
    static let limit = 64 * 1024
    private var lastFour: UInt32 = 0
    private var headEnded = false
    private(set) var bytes: [UInt8] = []
    /// More came than `limit`: the frames' boundaries are not known.
    private(set) var overflowed = false

    mutating func record(_ view: ByteBufferView) {
        guard !overflowed else { return }
        if headEnded {
            guard bytes.count + view.count <= Self.limit else { return overflow() }
            bytes.append(contentsOf: view)
            return
        }
        for (offset, byte) in view.enumerated() {
            lastFour = lastFour << 8 | UInt32(byte)
            if lastFour == 0x0D0A_0D0A {
                headEnded = true
                let rest = view.dropFirst(offset + 1)
                guard rest.count <= Self.limit else { return overflow() }
                bytes.append(contentsOf: rest)
                return
            }
        }
    }

    private mutating func overflow() {
        overflowed = true
        bytes = []
    }
}
