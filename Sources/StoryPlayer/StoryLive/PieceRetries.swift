import Foundation
import StoryMedia

/// When a live feed (`HLSPartFeed`, `DASHSegmentFeed`) asks again for a piece its playlist or
/// manifest lists but its server did not give (a 404 from an origin or CDN that lost it or has
/// not got it yet, a connection that broke), and when it gives up. Without a schedule the LL-HLS
/// feed asked for a missing part every 0.18 s, with a playlist reload each time (46 requests in
/// 8 s), until the open timed out, and the story's failure said nothing of the 404.
///
/// The schedule, exponential as hls.js's (`fragLoadPolicy.errorRetry`: 1 s doubling to 8 s, 6
/// retries), but from the piece's own length, since a live piece a length late is the common case:
/// - retry n waits `first × 2^(n-1)`, at most `4 × first`: for LL-HLS `first` is PART-TARGET
///   (0.33, 0.67, 1.33, 1.33, 1.33, 1.33 s for 1/3 s parts), for DASH a chunk's or segment's
///   duration (`DASHSegmentFeed.firstRetryWait`);
/// - failures count in a row, across pieces, until a piece arrives: passing over a piece does not
///   start the schedule again;
/// - a piece that failed `passOverAfter` times while newer ones are listed is passed over, as a
///   player skips a damaged one;
/// - the feed gives up after `retries` retries, or sooner when the next wait would outlast the
///   call it serves (the gate's open or read timeout), with the last failure as the reason: the
///   piece's URL and the HTTP status it answered.
struct PieceRetries {
    /// What failed, in the user's words: "LL-HLS parts", "DASH segments".
    let pieces: String
    /// The first wait (seconds): one piece's length.
    let first: Double

    /// Retries after the first failure before the feed gives up (hls.js's `maxNumRetry`).
    static let retries = 6
    /// Failures of one piece after which it is passed over, when newer pieces are listed.
    static let passOverAfter = 3
    /// Room kept before the gate's deadline for the retry's own fetch (seconds).
    static let fetchRoom = 0.5

    /// Failed fetches in a row since a piece last arrived.
    private(set) var failures = 0
    /// When the first of them failed (monotonic seconds).
    private var firstFailureAt = 0.0
    /// The piece failing now, and how often it failed in a row.
    private var piece: String?
    private var triesOfPiece = 0

    init(pieces: String, first: Double) {
        self.pieces = pieces
        // A playlist's own figure: never a busy loop, never minutes between tries.
        self.first = min(max(first, 0.05), 10)
    }

    /// The longest wait.
    var cap: Double { 4 * first }

    /// The wait before retry `n` (from 1).
    func delay(retry n: Int) -> Double { min(first * pow(2, Double(max(n, 1) - 1)), cap) }

    /// Whether the piece failing now failed often enough to be passed over (if newer ones are listed).
    var passesOver: Bool { triesOfPiece >= PieceRetries.passOverAfter }

    /// A piece arrived: the next failure starts the schedule again.
    mutating func arrived() {
        failures = 0
        piece = nil
        triesOfPiece = 0
    }

    /// The feed went on past the piece failing now.
    mutating func passedOver() {
        piece = nil
        triesOfPiece = 0
    }

    enum Next: Equatable {
        case retry(after: Double)
        case giveUp(MediaError)
    }

    /// The fetch of the piece at `url` failed with `error`: how long to wait before the next try,
    /// or the failure to end the stream with. `secondsLeft`: what the gate leaves the call the
    /// feed serves (`InterruptGate.secondsLeft`); `now`: monotonic seconds.
    mutating func failed(_ url: String, error: MediaError, secondsLeft: Double?, now: Double) -> Next {
        if piece != url { (piece, triesOfPiece) = (url, 0) }
        triesOfPiece += 1
        failures += 1
        if failures == 1 { firstFailureAt = now }
        let wait = delay(retry: failures)
        let outlasts = secondsLeft.map { wait + PieceRetries.fetchRoom > $0 } ?? false
        guard failures > PieceRetries.retries || outlasts else { return .retry(after: wait) }
        let answer = error.httpStatus.map { MediaError(error.code, "\(url) answered \($0)") } ?? error
        let spent = String(format: "%.1f", now - firstFailureAt)
        return .giveUp(MediaError(.read, "gave up on the \(pieces) after \(failures) failed fetches in \(spent) s", cause: answer))
    }
}
