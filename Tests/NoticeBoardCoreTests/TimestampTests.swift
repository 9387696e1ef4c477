import NoticeBoardCore
import Testing

@Suite struct TimestampTests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(Timestamp.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(milliseconds: 1_795_255_200_123) == "2026-11-21T10:00:00.123Z")
        #expect(Timestamp.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.format(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
    }

    @Test func roundTripsEveryFormattedTime() {
        for ms: Int64 in [0, 1, 999, 1_795_255_200_123, -86_400_001, 253_402_300_799_999] {
            #expect(Timestamp.parseCeilingMilliseconds(Timestamp.format(milliseconds: ms)) == ms)
        }
    }

    @Test func acceptsOffsetsAndAnyFraction() {
        let base: Int64 = 1_795_255_200_000  // 2026-11-21T10:00:00Z
        #expect(Timestamp.parseCeilingMilliseconds("2026-11-21T10:00:00Z") == base)
        #expect(Timestamp.parseCeilingMilliseconds("2026-11-21T11:00:00+01:00") == base)
        #expect(Timestamp.parseCeilingMilliseconds("2026-11-21T04:30:00-05:30") == base)
        #expect(Timestamp.parseCeilingMilliseconds("2026-11-21t10:00:00.5z") == base + 500)
        #expect(Timestamp.parseCeilingMilliseconds("2026-11-21T10:00:00.123Z") == base + 123)
        // Finer than a millisecond rounds up, so `from <= createdAt` stays exact on whole milliseconds.
        #expect(Timestamp.parseCeilingMilliseconds("2026-11-21T10:00:00.123000001Z") == base + 124)
        #expect(Timestamp.parseCeilingMilliseconds("2026-11-21T10:00:00.1230000Z") == base + 123)
    }

    @Test(arguments: [
        "", "2026-11-21", "2026-11-21T10:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-21T24:00:00Z",
        "2026-11-21T10:00:00.Z", "2026-11-21T10:00:00+0100", "2026-11-21T10:00:00Zjunk", "yesterday", "1795255200000",
    ])
    func rejectsWhatIsNotRFC3339(text: String) {
        #expect(Timestamp.parseCeilingMilliseconds(text) == nil)
    }
}
