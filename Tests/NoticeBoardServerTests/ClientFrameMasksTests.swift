import NIOCore
import Testing

@testable import NoticeBoardServer

/// The walk's inbound frames followed by their headers: masked frames of every length class pass
/// however the bytes are split, the first unmasked one is caught, and the bytes behind an upgrade
/// request are kept from their first byte.
@Suite struct ClientFrameMasksTests {
    static func frame(length: Int, masked: Bool = true, opcode: UInt8 = 0x1) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | opcode]
        let flag: UInt8 = masked ? 0x80 : 0
        if length < 126 {
            bytes.append(flag | UInt8(length))
        } else if length <= 0xFFFF {
            bytes += [flag | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(flag | 127)
            bytes += (0..<8).reversed().map { UInt8((length >> ($0 * 8)) & 0xFF) }
        }
        if masked { bytes += [0x12, 0x34, 0x56, 0x78] }
        // A payload of header-like bytes: only the header's length may decide where a frame ends.
        return bytes + [UInt8](repeating: 0x01, count: length)
    }

    static func admitted(_ stream: [UInt8], splitEvery step: Int) -> Bool {
        var masks = ClientFrameMasks()
        for start in stride(from: 0, to: stream.count, by: step) {
            if !masks.admit(ByteBuffer(bytes: stream[start..<min(stream.count, start + step)]).readableBytesView) { return false }
        }
        return true
    }

    @Test func maskedFramesPassHoweverTheyAreSplit() {
        let stream = [0, 1, 125, 126, 127, 300, 65_535, 65_536, 70_000].flatMap { Self.frame(length: $0) }
        for step in [1, 2, 3, 7, 13, 1000, stream.count] {
            #expect(Self.admitted(stream, splitEvery: step), "split every \(step)")
        }
    }

    @Test func theFirstUnmaskedFrameIsCaught() {
        for length in [0, 5, 200, 70_000] {
            let stream = Self.frame(length: 300) + Self.frame(length: 10) + Self.frame(length: length, masked: false)
            for step in [1, 4, 999, stream.count] {
                #expect(!Self.admitted(stream, splitEvery: step), "length \(length), split every \(step)")
            }
        }
        // A close frame without a mask counts as much as a text frame.
        #expect(!Self.admitted(Self.frame(length: 2, masked: false, opcode: 0x8), splitEvery: 1))
    }

    @Test func bytesBehindTheUpgradeRequestAreKeptFromTheirFirstByte() {
        let head = Array("GET /api/v1/walk HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n".utf8)
        let frames = Self.frame(length: 20) + Self.frame(length: 3, masked: false)
        let stream = head + frames
        for step in [1, 2, 3, 5, stream.count] {
            var after = BytesAfterHead()
            for start in stride(from: 0, to: stream.count, by: step) {
                after.record(ByteBuffer(bytes: stream[start..<min(stream.count, start + step)]).readableBytesView)
            }
            #expect(after.bytes == frames && !after.overflowed, "split every \(step)")
        }
        var flooded = BytesAfterHead()
        flooded.record(ByteBuffer(bytes: head + [UInt8](repeating: 0, count: BytesAfterHead.limit + 1)).readableBytesView)
        #expect(flooded.overflowed && flooded.bytes.isEmpty)
    }
}
