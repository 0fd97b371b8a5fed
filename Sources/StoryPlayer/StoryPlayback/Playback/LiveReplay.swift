/// The pictures a reopened segment source sends again, which the viewer has already seen.
///
/// FFmpeg's HLS demuxer starts a live playlist three segments from its end, and a DASH play
/// starts its presentation delay behind the edge, at every connection. A playlist that stopped
/// changing (a publisher paused, or gone without `#EXT-X-ENDLIST`) is therefore read again, after
/// the reconnect, from pictures shown seconds before: a viewer saw the last three seconds play
/// again, backwards in time, once per reconnect (ffmpeg's muxer and GStreamer's hlssink2 alike),
/// and a publisher that paused for 4 s jumped back 2 s when it came back.
///
/// The source's own timestamps tell them apart (`written`: an MPEG-TS segment's PTS, a DASH
/// segment's place in its period), within the reach of a reopen: what the demuxer can go back,
/// and a little more. Further back is a new stream (a publisher that restarted its timestamps),
/// which plays. Pushed sources (RTMP, SRT, MPEG-TS over HTTP) send only what is new, and are
/// not checked.
struct LiveReplay {
    /// The source's own time of the last picture passed on to the player, on any connection.
    private(set) var lastWritten: Double?

    /// Notes a picture passed on.
    mutating func passedOn(written: Double) {
        lastWritten = written
    }

    /// Whether a picture at `written`, before the first new one of a reopened connection, is
    /// one already passed on: no later than the last (within half a frame, as a timestamp
    /// rounded to its container's unit may be), and no further back than `reach` seconds.
    func wasShown(written: Double, frame: Double, reach: Double) -> Bool {
        guard let lastWritten else { return false }
        return written <= lastWritten + frame / 2 && written >= lastWritten - reach
    }

    /// How far back a reopened connection may start: the latency the source suggests (three
    /// HLS target durations, a DASH manifest's presentation delay) or the storyboard's target,
    /// whichever is more, and two seconds for a segment longer than declared.
    static func reach(suggested: Double?, target: Double?) -> Double {
        max(suggested ?? 3, target ?? 0) + 2
    }
}
