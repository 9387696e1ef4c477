import NoticeBoardCore
import Testing

@Suite struct ChangeCursorTests {
    @Test func contiguousChangesMoveTheWatermark() {
        var cursor = ChangeCursor(after: 10)
        cursor.applied([11, 12, 13], now: 0)
        #expect(cursor.watermark == 13)
        #expect(!cursor.isNew(12) && cursor.isNew(14))
    }

    @Test func aGapHoldsTheWatermarkUntilItFillsIn() {
        var cursor = ChangeCursor(after: 0, gapTimeout: 10)
        cursor.applied([1, 3, 4], now: 0)  // 2 committed later than 3 and 4
        #expect(cursor.watermark == 1)
        #expect(cursor.isNew(2) && !cursor.isNew(3) && !cursor.isNew(4))
        cursor.applied([2], now: 1)
        #expect(cursor.watermark == 4)
    }

    @Test func aGapThatNeverFillsIsGivenUpAfterTheTimeout() {
        var cursor = ChangeCursor(after: 0, gapTimeout: 10)
        cursor.applied([1, 3], now: 0)  // 2 rolled back
        cursor.applied([], now: 9.9)
        #expect(cursor.watermark == 1)
        cursor.applied([4], now: 10)
        #expect(cursor.watermark == 4)
        #expect(!cursor.isNew(2))
    }

    @Test func replayedChangesAreNotNew() {
        var cursor = ChangeCursor(after: 5)
        #expect(!cursor.isNew(5) && !cursor.isNew(1))
        cursor.applied([7], now: 0)
        #expect(!cursor.isNew(7) && cursor.isNew(6))
    }
}
