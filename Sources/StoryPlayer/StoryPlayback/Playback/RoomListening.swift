import StoryMedia
import StoryTrace

/// What a room hears: every participant's sound measured in 100 ms windows, the dominant
/// speaker it makes, and the speakers most recent first. Also the room's sound mixed for the
/// MP4.
struct RoomListening {
    /// With the realtime clock, how long a window may wait for a participant's sound before it
    /// is measured without it (as silence): the network's usual lag, not a stall.
    static let soundLagLimit = 1.0

    private var speaker = DominantSpeaker()
    /// Media seconds up to which sound has been measured.
    private(set) var measuredUntil = 0.0
    /// Dominant speakers, the most recent first: a stage shows the first, a grid brings each to
    /// page 1.
    private(set) var recentSpeakers: [String] = []
    private let storyID: String
    private let trace: LifecycleTrace
    private let waits: Bool

    init(storyID: String, waits: Bool, trace: LifecycleTrace) {
        self.storyID = storyID
        self.waits = waits
        self.trace = trace
    }

    var dominant: String? { speaker.dominant }

    func isSpeaking(_ participant: String) -> Bool { speaker.isSpeaking(participant) }

    /// How loud the participant is, from 0 to 1, while it speaks; nil while it does not.
    func speakingLevel(_ participant: String) -> Double? {
        let level = speaker.levels[participant] ?? -.infinity
        return speaker.isSpeaking(participant) ? min(1, max(0, (level + 50) / 50)) : nil
    }

    /// Measures every 100 ms window of sound up to media time `local` and records each change
    /// of dominant speaker at timeline time `t`, the frame that finds it. With the virtual clock
    /// every participant's sound is waited for; with the realtime clock a window waits
    /// (unmeasured) until every participant's sound for it has come, at most `soundLagLimit`.
    mutating func listen(until local: Double, at t: Double, to seats: [RoomSeats.Seat]) {
        let window = DominantSpeaker.window
        let count = Int((window * Double(ItemAudio.rate)).rounded())
        while measuredUntil + window <= local + 1e-9 {
            let end = measuredUntil + window
            if !waits, local - end < RoomListening.soundLagLimit,
               !seats.allSatisfy({ !$0.hasSound || $0.sound.covers(end) }) { break }
            var levels: [String: Double] = [:]
            for seat in seats where seat.hasSound {
                levels[seat.participant.id] = DominantSpeaker.rms(seat.sound.samples(from: measuredUntil, count: count))
            }
            measuredUntil = end
            if let changed = speaker.add(window: levels) {
                recentSpeakers.removeAll { $0 == changed }
                recentSpeakers.insert(changed, at: 0)
                // Stamped with the frame that finds it, the frame the large view changes in, not
                // the window's end: at a frame rate whose frames do not fall on the 100 ms windows
                // that end lies before the frame, and a shard starting at that frame took the
                // event for the shard before's, which never measured the window.
                trace.record(.speaker, t: t, story: storyID, participant: changed)
            }
        }
    }

    /// Every participant's sound at media time `local`, mixed (`--mp4`).
    static func mixed(_ seats: [RoomSeats.Seat], local: Double, count: Int) -> [Float] {
        var mixed = [Float](repeating: 0, count: count * 2)
        for seat in seats where seat.hasSound {
            let samples = seat.sound.mixed(from: local, count: count)
            for i in 0..<mixed.count { mixed[i] += samples[i] }
        }
        return mixed
    }
}
