import Foundation
@testable import StoryModel
@testable import StoryPlayback
import StoryPlayerTestSupport
import XCTest

/// The cadence live pictures are released on (`FrameCadence`), from timestamps alone, and the
/// controller starting afresh for a source that came back (`LivePlayhead.startSession`).
final class FrameCadenceTests: XCTestCase {
    /// Releases `times` in turn: the release times, and the changes with the index of the
    /// picture each came with.
    func run(_ times: [Double], through cadence: inout FrameCadence) -> (released: [Double], changes: [(Int, FrameCadence.Change)]) {
        var released: [Double] = [], changes: [(Int, FrameCadence.Change)] = []
        for (index, time) in times.enumerated() {
            let (out, change) = cadence.release(time)
            released.append(out)
            if let change { changes.append((index, change)) }
        }
        return (released, changes)
    }

    /// Which of `frames` frames at `fps` (frame n due at n / fps) shows which picture: the
    /// newest released by then, as the live clock shows them.
    func shown(_ released: [Double], frames: Int, fps: Double, lead: Double) -> [Int?] {
        (0..<frames).map { n in
            let due = Double(n) / fps + lead
            return released.lastIndex { $0 <= due + 1e-9 }
        }
    }

    /// 30 fps stamped 23.3 and 43.3 ms apart in turn (every odd picture 10 ms early), as a
    /// publisher that stamps frames on arrival writes them.
    static let uneven: [Double] = (0..<300).map { (index: Int) -> Double in
        let early: Double = index % 2 == 1 ? 0.010 : 0
        return Double(index) / 30 - early
    }

    func testUnevenTimestampsLockOnTheirCadenceAndEveryPictureGetsAFrame() throws {
        var cadence = FrameCadence()
        let (released, changes) = run(Self.uneven, through: &cadence)
        let (at, change) = try XCTUnwrap(changes.first, "a cadence locks")
        XCTAssertEqual(changes.count, 1, "and stays locked: \(changes)")
        XCTAssertEqual(at, FrameCadence.lockingPictures - 1, "after 17 pictures")
        guard case .locked(let interval, let jitter, let pictures) = change else { return XCTFail("\(change)") }
        XCTAssertEqual(1 / interval, 30, accuracy: 0.01, "the true rate, whichever parity the window starts on")
        XCTAssertEqual(jitter, 0.005, accuracy: 0.0015, "odd pictures 10 ms early lie about 5 ms either side of the line")
        XCTAssertEqual(pictures, FrameCadence.lockingPictures)
        // Past the lock, the releases are a steady 33.3 ms apart.
        for index in (at + 1)..<released.count {
            XCTAssertEqual(released[index] - released[index - 1], 1.0 / 30, accuracy: 0.0015, "picture \(index)")
        }
        // What a 30 fps timeline shows of it, wherever its frames fall between the pictures
        // (the live clock anchors at the first picture it gets): every picture after the lock,
        // each in a frame of its own. At their own times, for a third of the places a frame
        // can fall, a pair falls due in one frame and the next has none.
        var rawDistinct: [Int] = []
        for step in 0..<10 {
            let lead = Double(step) / 300
            let evened = Set(shown(released, frames: 290, fps: 30, lead: lead)[30...].compactMap { $0 }).count
            XCTAssertEqual(evened, 260, "every picture of frames 30-289 shown, frames \(step) ms after the cadence")
            rawDistinct.append(Set(shown(Self.uneven, frames: 290, fps: 30, lead: lead)[30...].compactMap { $0 }).count)
        }
        XCTAssertLessThan(rawDistinct.min() ?? 0, 150, "at their own times: \(rawDistinct)")
    }

    func testEvenTimestampsAreReleasedAtThemselves() {
        var cadence = FrameCadence()
        // FLV counts milliseconds: 33, 33, 34 ms.
        let times = (0..<100).map { (Double($0) / 30 * 1000).rounded() / 1000 }
        let (released, changes) = run(times, through: &cadence)
        XCTAssertEqual(changes.count, 1)
        for (time, out) in zip(times, released) { XCTAssertEqual(out, time, accuracy: 0.001) }
    }

    func testAPictureTheSourceDroppedLeavesItsPlaceEmpty() {
        var cadence = FrameCadence()
        var times = Self.uneven
        times.remove(at: 50)
        let (released, changes) = run(times, through: &cadence)
        XCTAssertEqual(changes.count, 1, "one dropped picture keeps the lock: \(changes)")
        XCTAssertEqual(released[50] - released[49], 2.0 / 30, accuracy: 0.0015, "two places on, not squeezed in")
        XCTAssertEqual(released.count, times.count, "no picture invented")
    }

    /// A publisher on a busy machine: now and then a picture stamped 18 ms later than its
    /// usual jitter (0.7 of an interval past its place with the pattern's 5 ms). It is still the
    /// next picture: released on its place, the lock kept, and no two pictures squeezed into
    /// one frame. Counted from its own time it took the place after, the next picture then lay
    /// a whole interval off the line, and the lock was let go five pictures on.
    func testAPictureLateNowAndThenKeepsTheLock() {
        var cadence = FrameCadence()
        var times = Self.uneven
        for late in stride(from: 40, to: 280, by: 40) { times[late] += 0.018 }
        let (released, changes) = run(times, through: &cadence)
        XCTAssertEqual(changes.count, 1, "locked once, never let go: \(changes)")
        for index in (FrameCadence.lockingPictures..<released.count) {
            XCTAssertEqual(released[index] - released[index - 1], 1.0 / 30, accuracy: 0.002, "picture \(index)")
        }
    }

    func testARealChangeOfRateIsFollowed() throws {
        var cadence = FrameCadence()
        // 30 fps for 3 s, then 25 fps (a publisher that changed its rate), then 60.
        var times = (0..<90).map { Double($0) / 30 }
        times += (1...100).map { 3 + Double($0) / 25 }
        let last = times.last!
        times += (1...120).map { last + Double($0) / 60 }
        let (released, changes) = run(times, through: &cadence)
        let intervals: [Double] = changes.compactMap { if case .locked(let interval, _, _) = $0.1 { interval } else { nil } }
        XCTAssertEqual(intervals.count, 3, "locked at each rate: \(changes)")
        XCTAssertEqual(intervals[0], 1.0 / 30, accuracy: 0.0005)
        XCTAssertEqual(intervals[1], 1.0 / 25, accuracy: 0.0005)
        XCTAssertEqual(intervals[2], 1.0 / 60, accuracy: 0.0005)
        XCTAssertTrue(changes.contains { if case .unlocked = $0.1 { true } else { false } })
        // Never reordered, and never far from the picture's own time.
        for index in released.indices.dropFirst() { XCTAssertGreaterThan(released[index], released[index - 1]) }
        // (A late picture goes out on its place, up to 0.75 of an interval before its time.)
        for (time, out) in zip(times, released) { XCTAssertEqual(out, time, accuracy: 0.03) }
    }

    func testNoCadenceInTimestampsThatWanderKeepsThemAsTheyAre() {
        var cadence = FrameCadence()
        var random = SplitMix64(seed: 7)
        var time = 0.0
        let times: [Double] = (0..<200).map { _ in
            time += 0.010 + Double(random.next() % 60) / 1000
            return time
        }
        let (released, changes) = run(times, through: &cadence)
        XCTAssertTrue(changes.isEmpty, "\(changes)")
        XCTAssertEqual(released, times)
    }

    // MARK: - A new session of the source

    func testANewSessionForgetsTheRaisedTargetAndStartsItsWindowAgain() {
        var clock = LivePlayhead(latency: LiveLatency.Resolved(target: 0.1, max: nil), controlsSpeed: true)
        clock.anchor(at: 0)
        _ = clock.control(offset: 0.1, at: 0)
        clock.rebuffered()
        XCTAssertEqual(clock.target, 0.6, accuracy: 1e-9, "the gap ran the old session dry")
        clock.startSession()
        XCTAssertEqual(clock.target, 0.1, accuracy: 1e-9, "the new session steers to the target the storyboard gave")
        XCTAssertFalse(clock.isWaitingForData)
        XCTAssertNil(clock.position, "the next picture anchors the clock")
        clock.anchor(at: 100)
        XCTAssertEqual(clock.control(offset: 0.2, at: 60) ?? 0, 0.1, accuracy: 1e-9,
                       "a return 0.1 s past its target jumps to it (a start would take 0.25 s), however long the play has run")
    }
}
