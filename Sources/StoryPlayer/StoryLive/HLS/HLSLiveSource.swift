import Foundation
import StoryMedia
import StoryModel

/// A live HLS playlist. A remote one is read once just before the demuxer opens, so the segment
/// it starts at is known, and watched beside it (`PlaylistWatch`); one that lists parts is
/// played as Low-Latency HLS (`HLSPartFeed`), one without by FFmpeg's demuxer.
package final class HLSLiveSource: LiveSource {
    package let source: MediaSource
    package var kind: LiveSourceKind { .hls }
    /// The media playlist as read just before this connection opened, and when.
    private var listing: (url: String, playlist: HLSPlaylist)?
    private var listedAt = 0.0
    /// A Low-Latency play: the segment its first part belongs to, and how far into that
    /// segment the part starts.
    private var partStart: (sequence: Int, offsetInSegment: Double)?

    init(_ source: MediaSource) {
        self.source = source
    }

    package var protocolName: String { partStart != nil ? "ll-hls" : "hls" }
    package var suggestedTarget: Double? { partStart != nil ? listing?.playlist.lowLatencyTarget : nil }

    package func prepare(limits: DecodeLimits, gate: InterruptGate, watchGate: InterruptGate) throws(MediaError) {
        partStart = nil
        // Bounded well inside the open timeout: a server too slow to answer within it gets no
        // watch (the offset is then estimated from the pictures), not a doubled wait.
        listing = source.isRemote ? try firstListing(limits: limits, gate: gate, watchGate: watchGate) : nil
        listedAt = LiveEdge.now()
    }

    package func openInput(limits: DecodeLimits, gate: InterruptGate, reception: SourceReception) throws(MediaError) -> LiveInput {
        if let listing, listing.playlist.isLowLatency {
            // Parts, preload hints and blocking reloads: see `HLSPartFeed` for why not FFmpeg's demuxer.
            let opening = try FormatContext.openLowLatencyHLS(source, url: listing.url, playlist: listing.playlist, limits: limits,
                                                              gate: gate, reception: reception)
            partStart = opening.start
            return LiveInput(format: opening.main)
        }
        return LiveInput(format: try openedByFFmpeg(limits: limits, gate: gate, reception: reception))
    }

    package func openSoundInput(limits: DecodeLimits, gate: InterruptGate) throws(MediaError) -> FormatContext {
        try openedByFFmpeg(limits: limits, gate: gate, reception: nil)
    }

    /// FFmpeg's HLS demuxer, its segments noted: where it started is where the live edge is
    /// measured from, and a timeout says which segment a server refused (`DemuxerOpenings`).
    private func openedByFFmpeg(limits: DecodeLimits, gate: InterruptGate, reception: SourceReception?) throws(MediaError) -> FormatContext {
        try FormatContext.open(source, limits: limits, gate: gate, isLive: true, demuxerOptions: LiveSources.demuxerOptions,
                               reception: reception, notesOpenings: true)
    }

    package func watch(beside decoder: MediaDecoder, epoch: Int, edge: LiveEdge, gate: InterruptGate, timeout: Double,
                       name: String) -> PlaylistWatch? {
        listing.map {
            PlaylistWatch(url: $0.url, first: $0.playlist, seenAt: listedAt,
                          start: partStart?.sequence ?? $0.playlist.sequence(openedFirstAmong: decoder.openedURLs),
                          offsetInSegment: partStart?.offsetInSegment ?? 0, epoch: epoch, edge: edge,
                          gate: gate, timeout: timeout, name: name)
        }
    }

    /// A local playlist has no watch, so it is read once more here (found in review, a finished
    /// one was reopened as a stall and its segments played again at each try, then failed). A
    /// remote one is not: its watch says so, and a server that stopped answering would hold the
    /// first reconnect up to two reads.
    package func saysEnded(unwatched gate: InterruptGate, timeout: Double) -> Bool {
        !source.isRemote && PlaylistWatch.saysEnded(source, gate: gate, timeout: timeout)
    }

    /// A playlist read again lists `#EXT-X-ENDLIST`; one that cannot be read has not said so.
    package func saysEnded(sound: ItemAudio, gate: InterruptGate, timeout: Double) -> Bool {
        PlaylistWatch.saysEnded(source, gate: gate, timeout: timeout)
    }

    package func stallReason(after decoder: MediaDecoder?) -> String {
        decoder.map { $0.formatName == "hls" } ?? true ? LiveSources.stalledPlaylist : "the stream ended"
    }

    /// A live HLS playlist as FFmpeg will read it (`PlaylistWatch.fetchMedia`), or nil. One that
    /// lists no segment yet, a broadcast about to start, is read again until it lists one, for
    /// up to `timeouts.open`, as a phone's player waits: FFmpeg's demuxer takes it for a stream
    /// without video that has ended, and the item failed after its reconnects, in under two
    /// seconds, saying the stream was lost.
    private func firstListing(limits: DecodeLimits, gate: InterruptGate,
                              watchGate: InterruptGate) throws(MediaError) -> (url: String, playlist: HLSPlaylist)? {
        // Each read bounded well inside the open timeout: a server too slow to answer within it
        // gets no watch (the offset is then estimated from the pictures), not a doubled wait.
        let readLimit = min(limits.timeouts.open / 2, PlaylistWatch.firstFetchLimit)
        let deadline = ContinuousClock.now + .seconds(limits.timeouts.open)
        while true {
            guard let fetched = PlaylistWatch.fetchMediaOrHead(source.ffmpegURL, gate: watchGate, timeout: readLimit) else { return nil }
            guard fetched.playlist.awaitsFirstSegment else { return fetched.playlist.lists ? fetched : nil }
            let wait = fetched.playlist.rereadInterval
            guard ContinuousClock.now + .seconds(wait) < deadline else {
                throw MediaError(.timeout, "no segment listed within \(ObjectReader.format(limits.timeouts.open)) s in \(source): "
                                 + "the broadcast has not started")
            }
            guard gate.sleep(seconds: wait) else { return nil }
        }
    }
}
