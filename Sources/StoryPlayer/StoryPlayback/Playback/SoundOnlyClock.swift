/// The clock of a live source's sound heard before it has sent any video: a publisher of sound
/// only (a radio stream, an audio room), or one whose video is still to come. It is anchored at
/// the oldest sound kept and moves with the player's media time at normal speed; the MP4 reads
/// the sound at its position (`ItemPlayer.liveSound`), as it reads a video's at its playhead.
///
/// It anchors again when the stream's timestamps jump: a publisher that returns starts its own
/// again, far from where the clock is.
struct SoundOnlyClock {
    private var anchor: (stream: Double, local: Double)
    /// The start of the newest block seen: a jump is judged only when a new block comes.
    private var newestSeen: Double

    /// How far behind the clock a new block may end before its timestamps count as a jump back.
    static let jumpBack = 2.0

    init(earliest: Double, newest: (start: Double, end: Double), at local: Double) {
        anchor = (earliest, local)
        newestSeen = newest.start
    }

    /// The stream time of the sound due at media time `local`.
    func position(at local: Double) -> Double {
        anchor.stream + max(0, local - anchor.local)
    }

    /// Follows the sound kept at media time `local`: the oldest block's start and the newest
    /// block. The clock anchors again at the oldest block when it has fallen behind what is kept,
    /// and at the newest when that one jumped back (it ends well behind the clock) or ahead
    /// (further than any backlog could be).
    mutating func follow(earliest: Double, newest: (start: Double, end: Double), at local: Double) {
        let position = position(at: local)
        if position < earliest {
            anchor = (earliest, local)
        } else if newest.start != newestSeen,
                  newest.end < position - SoundOnlyClock.jumpBack || newest.start > position + LiveSound.keptSeconds {
            anchor = (newest.start, local)
        }
        newestSeen = newest.start
    }
}
