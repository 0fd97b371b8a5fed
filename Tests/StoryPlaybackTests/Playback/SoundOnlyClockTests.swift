@testable import StoryMedia
@testable import StoryPlayback
import StoryPlayerTestSupport
import XCTest

/// The clock a live source's sound plays on before any video: it runs with media time from the
/// oldest sound kept, and anchors again only when the stream's timestamps jump.
final class SoundOnlyClockTests: XCTestCase {
    func testItRunsWithMediaTimeFromTheOldestSound() {
        let clock = SoundOnlyClock(earliest: 100, newest: (108, 108.02), at: 2)
        XCTAssertEqual(clock.position(at: 2), 100)
        XCTAssertEqual(clock.position(at: 3.5), 101.5)
        XCTAssertEqual(clock.position(at: 1), 100, "never before its anchor")
    }

    /// A backlog (the virtual clock waited for the open timeout) is played through, not skipped.
    func testABacklogAheadIsPlayedThrough() {
        var clock = SoundOnlyClock(earliest: 100, newest: (108, 108.02), at: 0)
        clock.follow(earliest: 100, newest: (108.02, 108.04), at: 1)
        XCTAssertEqual(clock.position(at: 1), 101)
    }

    func testFallingBehindWhatIsKeptAnchorsAtTheOldestSound() {
        var clock = SoundOnlyClock(earliest: 100, newest: (100, 100.02), at: 0)
        clock.follow(earliest: 130, newest: (150, 150.02), at: 1)
        XCTAssertEqual(clock.position(at: 1), 130)
    }

    /// A publisher that returns starts its timestamps again: the clock follows its sound.
    func testTimestampsThatJumpBackAnchorAgain() {
        var clock = SoundOnlyClock(earliest: 100, newest: (109, 109.02), at: 0)
        clock.follow(earliest: 100, newest: (109, 109.02), at: 8)
        XCTAssertEqual(clock.position(at: 8), 108, "the same newest block: no jump judged")
        clock.follow(earliest: 100, newest: (0.5, 0.52), at: 8.1)
        XCTAssertEqual(clock.position(at: 8.1), 0.5)
        XCTAssertEqual(clock.position(at: 9.1), 1.5)
    }

    /// After the jump back, the clock stays with the new sound as its blocks keep coming (a new
    /// connection's decoder drops the old connection's sound, `LiveSound.drop`).
    func testAfterAJumpBackTheClockStaysWithTheNewSound() {
        let sound = LiveSound()
        func block(_ start: Double) { sound.append(SoundBlock(time: start, samples: [Float](repeating: 0.1, count: 960)), epoch: LiveSound.beforeVideo) }
        for k in 0..<10 { block(100 + Double(k) * 0.02) }
        let kept = sound.extent(epoch: LiveSound.beforeVideo)!
        var clock = SoundOnlyClock(earliest: kept.earliest, newest: kept.newest, at: 0)
        sound.drop(epoch: LiveSound.beforeVideo)
        XCTAssertNil(sound.extent(epoch: LiveSound.beforeVideo))
        var local = 5.0
        for k in 0..<20 {
            block(0.5 + Double(k) * 0.02)
            let kept = sound.extent(epoch: LiveSound.beforeVideo)!
            clock.follow(earliest: kept.earliest, newest: kept.newest, at: local)
            XCTAssertEqual(clock.position(at: local), 0.5 + Double(k) * 0.02, accuracy: 1e-9, "block \(k)")
            local += 0.02
        }
    }

    func testTimestampsThatJumpFarAheadAnchorAgain() {
        var clock = SoundOnlyClock(earliest: 100, newest: (101, 101.02), at: 0)
        clock.follow(earliest: 100, newest: (5000, 5000.02), at: 1)
        XCTAssertEqual(clock.position(at: 1), 5000)
    }

    /// A stall: no new block, the clock runs on (silence), and the stream's next block, close
    /// behind it, is not taken for a jump.
    func testAShortStallIsNotAJump() {
        var clock = SoundOnlyClock(earliest: 100, newest: (101, 101.02), at: 0)
        clock.follow(earliest: 100, newest: (101, 101.02), at: 2.5)
        clock.follow(earliest: 100, newest: (101.02, 101.04), at: 2.6)
        XCTAssertEqual(clock.position(at: 2.6), 102.6, accuracy: 1e-9)
    }
}
