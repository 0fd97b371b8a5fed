import StoryLive
import StoryMedia
import Synchronization

/// A live story's sound as its decode thread heard it, for the MP4: blocks of 48 kHz stereo on
/// the pictures' time line, read back at the live clock's position and speed.
///
/// Shared by the decode thread, which appends, and the render thread, which reads; the mutex is
/// held for a copy of one frame's samples at most.
final class LiveSound: Sendable {
    private struct Block {
        let epoch: Int
        let start: Double
        let samples: [Float]
        var end: Double { start + Double(samples.count / 2) / Double(ItemAudio.rate) }
    }

    private let blocks = Mutex<[Block]>([])
    /// The most sound kept: far more than the lag at which it is read (`FrameSound.lagSeconds`).
    static let keptSeconds = 20.0
    /// How far a block's timestamp may stray from the end of the one before and still follow it.
    static let joinTolerance = 0.05

    /// The time line of sound heard before the source sent any video, in the stream's own
    /// seconds: a source of sound only plays from it (`ItemPlayer.liveSound`). Pictures' time
    /// lines (`LiveEdge` epochs) count from 0.
    static let beforeVideo = -1

    init() {}

    /// Forgets the sound of time line `epoch`.
    func drop(epoch: Int) {
        blocks.withLock { $0.removeAll { $0.epoch == epoch } }
    }

    /// The sound kept of time line `epoch`: where its oldest block starts, where its newest
    /// block starts and ends, and how many seconds of sound the blocks hold (which timestamps
    /// that jump do not stretch); nil when none is kept.
    func extent(epoch: Int) -> (earliest: Double, newest: (start: Double, end: Double), seconds: Double)? {
        blocks.withLock { blocks in
            guard let first = blocks.first(where: { $0.epoch == epoch }), let last = blocks.last(where: { $0.epoch == epoch }) else { return nil }
            let seconds = blocks.reduce(0.0) { $1.epoch == epoch ? $0 + ($1.end - $1.start) : $0 }
            return (first.start, (last.start, last.end), seconds)
        }
    }

    /// Adds a block timed on the pictures' time line `epoch` (`LiveEdge`), in arrival order.
    func append(_ block: SoundBlock, epoch: Int) {
        guard !block.samples.isEmpty else { return }
        blocks.withLock { blocks in
            // Sound is continuous: a block that starts about where the last ended follows it
            // exactly. Timestamps rounded to the container's unit (FLV counts milliseconds, an
            // AAC frame lasts 21.33) would otherwise leave slivers of silence between blocks,
            // or overlaps, each a click.
            var start = block.time
            if let last = blocks.last, last.epoch == epoch, abs(start - last.end) < LiveSound.joinTolerance { start = last.end }
            blocks.append(Block(epoch: epoch, start: start, samples: block.samples))
            var kept = 0.0
            var first = blocks.count
            while first > 0 && kept < LiveSound.keptSeconds {
                first -= 1
                kept += Double(blocks[first].samples.count / 2) / Double(ItemAudio.rate)
            }
            if first > 0 { blocks.removeFirst(first) }
        }
    }

    /// `count` stereo frames of sound from time `start` of time line `epoch`, played at `speed`:
    /// at 1.03 the frames cover 3% more of the stream, so the sound keeps up with pictures shown
    /// faster (and its pitch rises with them, as a player's does without time-stretching).
    /// Silence where nothing was heard.
    func samples(from start: Double, count: Int, speed: Double, epoch: Int) -> [Float] {
        var out = [Float](repeating: 0, count: count * 2)
        let rate = Double(ItemAudio.rate)
        blocks.withLock { blocks in
            // The block that holds each sample's time, found by a search only when the one before
            // does not hold it: after a jump back in the timestamps, blocks of one time line are
            // not in time order.
            func holder(of time: Double, near guess: Int?) -> Int? {
                if let guess, guess < blocks.count, blocks[guess].epoch == epoch,
                   blocks[guess].start <= time, time < blocks[guess].end { return guess }
                if let guess, guess + 1 < blocks.count, blocks[guess + 1].epoch == epoch,
                   blocks[guess + 1].start <= time, time < blocks[guess + 1].end { return guess + 1 }
                return blocks.lastIndex { $0.epoch == epoch && $0.start <= time && time < $0.end }
            }
            var b: Int?
            for i in 0..<count {
                let time = start + Double(i) * speed / rate
                guard let found = holder(of: time, near: b) else { continue }
                b = found
                let block = blocks[found]
                let position = max(0, (time - block.start) * rate)
                let frames = block.samples.count / 2
                let k = min(Int(position), frames - 1)
                let fraction = Float(position - Double(k))
                for channel in 0..<2 {
                    let here = block.samples[k * 2 + channel]
                    let next = k + 1 < frames ? block.samples[(k + 1) * 2 + channel]
                        : found + 1 < blocks.count && blocks[found + 1].epoch == epoch ? blocks[found + 1].samples[channel] : here
                    out[i * 2 + channel] = here + (next - here) * fraction
                }
            }
        }
        return out
    }
}

/// A live story's sound for one frame, read when the stream has had time to send it: the
/// position and speed the live clock had at the frame, and the story's share of the screen.
package struct LiveSoundTake: Sendable {
    let sound: LiveSound
    let from: Double
    let speed: Double
    let epoch: Int
    package var gain: Float = 1

    package func samples(count: Int) -> [Float] {
        sound.samples(from: from, count: count, speed: speed, epoch: epoch)
    }
}

/// What a playing item gives the MP4 for one frame.
package enum ItemSound {
    /// Samples ready now (a file, a room).
    case samples([Float])
    /// A live story's, read later (`FrameSound`).
    case live(LiveSoundTake)
}
