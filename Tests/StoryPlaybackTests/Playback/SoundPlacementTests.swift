@testable import StoryMedia
@testable import StoryPlayback
import StoryPlayerTestSupport
import XCTest

/// Where a live participant's sound goes on the room's realtime clock (`SoundPlacement`): at its
/// arrival plus the playout delay, measured from the block that came nearest the live edge, so
/// that the sound an open held back does not set it.
final class SoundPlacementTests: XCTestCase {
    private let delay = ParticipantSound.playoutDelay
    /// 1024 stereo frames, an AAC frame's 21.3 ms.
    private func block(at time: Double) -> SoundBlock {
        SoundBlock(time: time, samples: [Float](repeating: 0.1, count: 2048))
    }

    private func placed(_ placement: inout SoundPlacement, _ time: Double, arrival: Double) -> Double {
        var block = block(at: time)
        _ = placement.place(&block, arrival: arrival, delay: delay)
        return block.time
    }

    /// An RTMP open held back 0.9 s of sound: it is read at once 1 s into the room, then the
    /// stream comes live, each block 0.1 s after its timestamp. The live blocks are placed at
    /// their own arrival plus the delay, 0.9 s earlier than the first block's arrival would put
    /// them (the sound was 0.63-0.90 s behind the pictures at a recording's far end).
    func testSoundHeldBackByTheOpenDoesNotSetWhereTheLiveSoundGoes() {
        var placement = SoundPlacement(isLive: true, waits: false, followsEdge: true)
        XCTAssertEqual(placed(&placement, 0, arrival: 1.0), 1.0 + delay, accuracy: 1e-9)
        for k in 1..<42 { _ = placed(&placement, Double(k) * 0.0213, arrival: 1.0) }
        XCTAssertEqual(placed(&placement, 0.92, arrival: 1.02), 1.02 + delay, accuracy: 1e-9, "live: at its arrival")
        XCTAssertEqual(placed(&placement, 2.0, arrival: 2.1), 2.1 + delay, accuracy: 1e-9)
    }

    /// Once live, a block that comes late (the network's jitter, a busy machine) keeps its place
    /// by its timestamp, and one a little early (less than `nearerEdge`) does not move the sound:
    /// each move cuts it.
    func testJitterDoesNotMoveTheSound() {
        var placement = SoundPlacement(isLive: true, waits: false, followsEdge: true)
        _ = placed(&placement, 10, arrival: 0.5)
        XCTAssertEqual(placed(&placement, 10.5, arrival: 1.15), 1.0 + delay, accuracy: 1e-9, "late by 0.15 s: kept by its timestamp")
        XCTAssertEqual(placed(&placement, 11, arrival: 1.49), 1.5 + delay, accuracy: 1e-9, "early by 10 ms: not moved")
        XCTAssertEqual(placed(&placement, 12, arrival: 2.45), 2.45 + delay, accuracy: 1e-9, "early by 50 ms: moved")
    }

    /// A new connection after a drop starts where it arrives, but never before the last
    /// connection's sound ended, however near the edge its blocks come.
    func testANewConnectionIsNotPlacedBeforeTheLastOnesSound() {
        var placement = SoundPlacement(isLive: true, waits: false, followsEdge: true)
        _ = placed(&placement, 0, arrival: 0)
        let lastEnd = placed(&placement, 5, arrival: 5) + 1024.0 / Double(ItemAudio.rate)
        placement.reconnected()
        XCTAssertEqual(placed(&placement, 100, arrival: lastEnd - delay - 0.3), lastEnd, accuracy: 1e-9)
        XCTAssertEqual(placed(&placement, 100.5, arrival: lastEnd - delay + 0.2), lastEnd + 0.2, accuracy: 1e-9,
                       "the next block, after the last sound, at its arrival")
    }

    /// HLS comes a segment at a time: a 2 s segment read at once at 3 s, the next at 5 s. Its
    /// newest block is always the nearest its edge, and the sound placed by it would leave
    /// the rest of every segment before its own arrival: such a source stays where its first
    /// block arrived.
    func testSoundThatComesInSegmentsStaysWhereItsFirstBlockArrived() {
        var placement = SoundPlacement(isLive: true, waits: false, followsEdge: false)
        XCTAssertEqual(placed(&placement, 10, arrival: 3), 3 + delay, accuracy: 1e-9)
        XCTAssertEqual(placed(&placement, 11.98, arrival: 3), 4.98 + delay, accuracy: 1e-9)
        XCTAssertEqual(placed(&placement, 12, arrival: 5), 5 + delay, accuracy: 1e-9, "the next segment follows, before its arrival's end")
        XCTAssertEqual(placed(&placement, 13.98, arrival: 5), 6.98 + delay, accuracy: 1e-9)
    }

    /// The virtual clock places a live connection at the room's start, a recording at its
    /// timestamps, whenever they arrive.
    func testOtherSoundIsPlacedByItsTimestamps() {
        var live = SoundPlacement(isLive: true, waits: true, followsEdge: true)
        XCTAssertEqual(placed(&live, 40, arrival: 3), 0, accuracy: 1e-9)
        XCTAssertEqual(placed(&live, 41, arrival: 9), 1, accuracy: 1e-9)
        var recorded = SoundPlacement(isLive: false, waits: false, followsEdge: false)
        XCTAssertEqual(placed(&recorded, 2, arrival: 7), 2, accuracy: 1e-9)
    }

    /// A publisher whose sound falls behind for good (its clock slow against ours, a send queue
    /// that built up, timestamps that stepped back) would be placed before its own arrival,
    /// never heard: after `blocksBehindToMove` such blocks in a row the sound moves on to where
    /// they arrive, and the block says it replaces what the room holds. A few late blocks (the
    /// network's jitter) keep their place.
    func testSoundThatFallsBehindForGoodMovesOn() {
        var placement = SoundPlacement(isLive: true, waits: false, followsEdge: true)
        _ = placed(&placement, 0, arrival: 0)
        for k in 1...5 { XCTAssertEqual(placed(&placement, Double(k) * 0.02, arrival: Double(k) * 0.02 + 0.15), Double(k) * 0.02 + delay, accuracy: 1e-9) }
        XCTAssertEqual(placed(&placement, 0.2, arrival: 0.2), 0.2 + delay, accuracy: 1e-9, "jitter: the place is kept")
        var moves: [SoundPlacement.Placed] = []
        for k in 0..<SoundPlacement.blocksBehindToMove {
            var late = block(at: 1 + Double(k) * 0.02)
            moves.append(placement.place(&late, arrival: 1.5 + Double(k) * 0.02, delay: delay))
        }
        XCTAssertEqual(moves.last, .moved, "\(moves)")
        XCTAssertEqual(moves.dropLast().filter { $0 == .moved }, [])
        XCTAssertEqual(placed(&placement, 1.2, arrival: 1.7), 1.7 + delay, accuracy: 1e-9, "on from where they arrive")
    }

    /// A timestamp that is not a number does not become the connection's place.
    func testATimestampThatIsNotANumberPlacesNothing() {
        var placement = SoundPlacement(isLive: true, waits: false, followsEdge: true)
        var broken = block(at: .nan)
        _ = placement.place(&broken, arrival: 1, delay: delay)
        var infinite = block(at: .infinity)
        _ = placement.place(&infinite, arrival: 1.1, delay: delay)
        XCTAssertEqual(placed(&placement, 5, arrival: 2), 2 + delay, accuracy: 1e-9)
        XCTAssertEqual(placed(&placement, 6, arrival: 3), 3 + delay, accuracy: 1e-9)
    }

    /// The room mixes a frame's sound as the frame is drawn: at 10 fps 0.1 s ahead, so a pushed
    /// source's sound is placed at least that (and 30 ms) after it arrives.
    func testThePlayoutDelayCoversAFramesSound() {
        XCTAssertEqual(ParticipantSound.playoutDelay(mixingAhead: 1.0 / 30), ParticipantSound.playoutDelay)
        XCTAssertEqual(ParticipantSound.playoutDelay(mixingAhead: 0.1), 0.13, accuracy: 1e-9)
    }

    /// A publisher restarts while nginx-rtmp holds the viewer's connection: its timestamps go
    /// back from 300 s to 0 on the same connection. Placed by the old shift, its sound lay 300 s
    /// in the past, never heard again (the 45-minute soak: participant 1, restarted every five
    /// minutes, had no beep at the end). Ten blocks later it is heard where it arrives.
    func testTimestampsThatGoBackOnAHeldConnectionAreHeardAgain() {
        var placement = SoundPlacement(isLive: true, waits: false, followsEdge: true)
        for k in 0..<50 { _ = placed(&placement, 290 + Double(k) * 0.02, arrival: 10 + Double(k) * 0.02) }
        var last = 0.0
        for k in 0..<SoundPlacement.blocksBehindToMove + 5 {
            last = placed(&placement, 0.02 + Double(k) * 0.02, arrival: 12 + Double(k) * 0.02)
        }
        XCTAssertEqual(last, 12 + Double(SoundPlacement.blocksBehindToMove + 4) * 0.02 + delay, accuracy: 1e-9)
    }
}

