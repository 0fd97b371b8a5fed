import Foundation
import StoryMedia
import Synchronization

/// Where a live stream's edge is now, in the stream's own time: what the player measures its
/// offset against (`live_offset_ms`) and steers by (`LivePlayhead`).
///
/// Written by the decode thread (pictures as they arrive) and by a playlist's watch (segments
/// as they are listed), read by the render thread. Every estimate is a *lead*: stream seconds
/// minus monotonic seconds, so that the edge at any moment is `lead + now`. Each piece of
/// evidence bounds the lead from below (nothing arrives before it is made), so the largest one
/// seen is the best; it is kept per connection (`epoch`), since a new connection or a jump in
/// the timestamps starts a new time line.
package final class LiveEdge: Sendable {
    /// Where an offset came from (`live_offset_from`).
    package enum Evidence: String, Sendable {
        /// `EXT-X-PROGRAM-DATE-TIME`: the publisher's own clock, stamped on each segment.
        case programDateTime = "program-date-time"
        /// When pictures (or, for a playlist, its segments) arrived here.
        case arrival
    }

    private struct Line {
        /// The stream time of the connection's first picture: where a playlist's first segment starts.
        var base: Double?
        /// From pictures as they were decoded.
        var pictureLead: Double?
        /// From a playlist's segments as they were listed, relative to its first segment's start.
        var playlistLead: Double?
        /// Whether `playlistLead` comes from a segment listed after the first read: the first
        /// read's segments were finished some time before it, so they bound the edge only loosely
        /// (up to a segment too early).
        var playlistLeadIsFirm = false
        /// From the playlist's program dates: stream seconds (relative) minus seconds since 1970.
        var programLead: Double?
        /// A picture's time on this line less its timestamp as the source wrote it: how a DASH
        /// manifest's media times map onto the line.
        var shift: Double?
        /// The newest picture decoded on this line.
        var newest: Double?
    }

    private struct State {
        var epoch = 0
        var lines: [Int: Line] = [0: Line()]
        var ended = false
        var hasPlaylist = false
        var suggestedTarget: Double?
        var suggestedSpeeds: ClosedRange<Double>?
        /// From a DASH manifest's newest segment: media seconds (as the source wrote them) less
        /// when it was listed (monotonic seconds). One for every time line: the media times are
        /// the source's own, and each line maps them by its `shift`.
        var manifestLead: Double?
    }

    private let state = Mutex(State())

    package init() {}

    /// Starts a new time line (a reconnect, or a jump in the timestamps); returns its number.
    @discardableResult
    package func newEpoch() -> Int {
        state.withLock { state in
            state.epoch += 1
            state.lines[state.epoch] = Line()
            state.lines = state.lines.filter { $0.key >= state.epoch - 1 }
            return state.epoch
        }
    }

    package var epoch: Int { state.withLock { $0.epoch } }

    /// A picture of time line `epoch` decoded at `now` (monotonic seconds); `written` is its
    /// timestamp as the source wrote it, in seconds.
    package func pictureArrived(time: Double, written: Double? = nil, epoch: Int, now: Double) {
        state.withLock { state in
            guard var line = state.lines[epoch] else { return }
            if line.base == nil { line.base = time }
            if line.shift == nil, let written { line.shift = time - written }
            line.pictureLead = Swift.max(line.pictureLead ?? -.infinity, time - now)
            line.newest = Swift.max(line.newest ?? -.infinity, time)
            state.lines[epoch] = line
        }
    }

    /// Whether a picture after `time` on line `epoch`, or on a later line, has been decoded: if
    /// so, one the player waits for is on its way through the threads, and the stream has not
    /// run dry.
    package func hasDecoded(after time: Double, epoch: Int) -> Bool {
        state.withLock { state in
            if state.epoch > epoch { return true }
            return (state.lines[epoch]?.newest ?? -.infinity) > time + PictureTime.slack
        }
    }

    /// A playlist's evidence for the current time line: its segments' ends relative to its first
    /// segment's start, minus when each was first listed (monotonic seconds), and, where it has
    /// them, the program dates.
    /// `firm` says the segments were listed after the first read, so the lead is tight.
    func playlistSeen(lead: Double?, programLead: Double?, firm: Bool = true, epoch: Int) {
        state.withLock { state in
            state.hasPlaylist = true
            guard var line = state.lines[epoch] else { return }
            if let lead {
                line.playlistLead = Swift.max(line.playlistLead ?? -.infinity, lead)
                if firm { line.playlistLeadIsFirm = true }
            }
            if let programLead { line.programLead = programLead }
            state.lines[epoch] = line
        }
    }

    /// A DASH manifest's evidence: its newest segment's end in the source's media seconds, less
    /// when it was listed (monotonic seconds).
    func manifestSeen(lead: Double) {
        state.withLock { state in
            state.manifestLead = Swift.max(state.manifestLead ?? -.infinity, lead)
        }
    }

    /// The manifest's media times started again: what it said before no longer holds.
    func manifestRestarted() { state.withLock { $0.manifestLead = nil } }

    /// The target the source suggests (a DASH manifest's `suggestedPresentationDelay`), for a
    /// storyboard that gives none.
    func suggest(target: Double) { state.withLock { $0.suggestedTarget = target } }
    package var suggestedTarget: Double? { state.withLock { $0.suggestedTarget } }

    /// The speeds the source lets a player keep its target with (a DASH manifest's
    /// `ServiceDescription` `PlaybackRate`).
    func suggest(speeds: ClosedRange<Double>) { state.withLock { $0.suggestedSpeeds = speeds } }
    package var suggestedSpeeds: ClosedRange<Double>? { state.withLock { $0.suggestedSpeeds } }

    /// The playlist says no segment follows (`#EXT-X-ENDLIST`).
    func markEnded() { state.withLock { $0.ended = true } }
    package var hasEnded: Bool { state.withLock { $0.ended } }

    /// How far behind the edge a picture of stream time `time` (time line `epoch`) is at
    /// monotonic `now`, and from what evidence; nil while there is none. A playlist's evidence
    /// wins over pictures': a segmented stream's pictures are fetched when they are needed, not
    /// when they are made.
    package func offset(of time: Double, epoch: Int, now: Double, unixNow: Double = Date().timeIntervalSince1970) -> (seconds: Double, from: Evidence)? {
        state.withLock { state in
            guard let line = state.lines[epoch] else { return nil }
            if let base = line.base, let program = line.programLead {
                return (base + program + unixNow - time, .programDateTime)
            }
            if let lead = state.manifestLead, let shift = line.shift {
                return (lead + shift + now - time, .arrival)
            }
            if state.hasPlaylist {
                guard let base = line.base, let lead = line.playlistLead else { return nil }
                return (base + lead + now - time, .arrival)
            }
            return line.pictureLead.map { ($0 + now - time, .arrival) }
        }
    }

    /// Whether the edge of time line `epoch` is known for sure, so that a start far behind it can
    /// be judged: a playlist's edge is, once a segment has been listed after the first read (or
    /// the playlist has program dates, or the source is a DASH manifest read with its
    /// `publishTime`); pictures that are pushed, from the first one.
    package func isFirm(epoch: Int) -> Bool {
        state.withLock { state in
            guard let line = state.lines[epoch] else { return false }
            if line.programLead != nil || (state.manifestLead != nil && line.shift != nil) { return true }
            return state.hasPlaylist ? line.playlistLeadIsFirm : line.pictureLead != nil
        }
    }

    /// Monotonic seconds, the clock every lead is measured on.
    package static func now() -> Double { Double(InterruptGate.now()) / 1e9 }
}
