import Compositor
import Foundation
import StoryBase
import StoryMedia
import StoryModel

extension DecodeThread.Worker {
    /// Opens the source. A live HLS playlist is read once just before, so the segment the
    /// demuxer starts at is known, and then watched beside it (`PlaylistWatch`).
    func open(epoch: Int) throws(MediaError) -> (MediaDecoder, PlaylistWatch?) {
        // Bounded well inside the open timeout: a server too slow to answer within it gets no
        // watch (the offset is then estimated from the pictures), not a doubled wait.
        let playlist = isLive && source.isRemote && LiveSourceKind(source) == .hls ? try firstListing() : nil
        let seen = LiveEdge.now()
        // Opening reads the stream information, which decodes a few frames: decode work.
        let decoder = try clock.measure(.decode) { () throws(MediaError) in
            try MediaDecoder(source: source, limits: limits, gate: gate, isLive: isLive, reception: reception, listing: playlist)
        }
        decoder.decodesSound = isLive && keepsSound
        if decoder.decodesSound {
            let sound = sound
            // A new connection's timestamps start where its publisher's do: the last one's sound
            // before video would only be mistaken for its.
            sound.drop(epoch: LiveSound.beforeVideo)
            decoder.hearsBeforeVideo = { blocks in
                for block in blocks { sound.append(block, epoch: LiveSound.beforeVideo) }
            }
        }
        var watch = playlist.map {
            PlaylistWatch(url: $0.url, first: $0.playlist, seenAt: seen,
                          start: decoder.partStart?.sequence ?? $0.playlist.sequence(openedFirstAmong: decoder.openedURLs),
                          offsetInSegment: decoder.partStart?.offsetInSegment ?? 0, epoch: epoch, edge: edge,
                          gate: watchGate, timeout: limits.timeouts.open, name: playlistName)
        }
        if isLive, source.isRemote, LiveSourceKind(source) == .dash {
            watch = PlaylistWatch(dash: source.ffmpegURL, clockOffset: decoder.dashClockOffset, edge: edge, gate: watchGate,
                                  timeout: limits.timeouts.open, name: playlistName)
        }
        return (decoder, watch)
    }

    /// A live HLS playlist as FFmpeg will read it (`PlaylistWatch.fetchMedia`), or nil. One that
    /// lists no segment yet, a broadcast about to start, is read again until it lists one, for
    /// up to `timeouts.open`, as a phone's player waits: FFmpeg's demuxer takes it for a stream
    /// without video that has ended, and the item failed after its reconnects, in under two
    /// seconds, saying the stream was lost.
    private func firstListing() throws(MediaError) -> (url: String, playlist: HLSPlaylist)? {
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

    /// A source of sound only: its one picture (`SoundOnlyStill`), shown from media time 0 for
    /// as long as the sound lasts (`ItemLength`), then the end of its data. The player reads
    /// the sound from the file itself (`ItemAudio`), as it does a video's; the first-frame
    /// spans are those of that picture, which shows when the sound starts.
    func show(_ still: SoundOnlyStill, over decoder: MediaDecoder) {
        let openMs = milliseconds(since: started)
        var facts = MediaFacts(decoder, isLive: false)
        let (choice, picture) = clock.measure(.decode) { still.picture(over: decoder, limits: limits, width: canvas.width, height: canvas.height) }
        facts.soundOnlyPicture = choice
        guard queue.put(.opened(facts)) else { return }
        switch picture {
        case .decoded(let decoded, let firstPacketAt):
            let packet = firstPacketAt.map { milliseconds(since: started, to: $0) } ?? openMs
            let spans = FirstFrameSpans(openMs: openMs, firstPacketMs: packet, firstFrameMs: milliseconds(since: started))
            guard queue.put(.decoded(time: 0, picture: decoded, spans: spans)) else { return }
        case .drawn(let image):
            // Drawn at the canvas's size already: the convert thread passes it on as it is.
            let spans = FirstFrameSpans(openMs: openMs, firstPacketMs: openMs, firstFrameMs: milliseconds(since: started))
            guard queue.put(.picture(time: 0, image: image, spans: spans)) else { return }
        }
        queue.put(.end)
    }

    /// A shard's player that starts mid-item (`startAt` > 0) seeks to the last keyframe before
    /// its start and decodes forward from there, instead of from the beginning: what the seek
    /// costs is the shard's (`ShardCost`), and the pictures decoded forward are counted
    /// (`ForwardPass`). Nil, the failure queued and the decoder closed, if the seek failed.
    func seekToStart(of decoder: MediaDecoder) -> ForwardPass? {
        let forwards = startAt > 0 && !decoder.isStill && !isLive
        if forwards {
            let seekingFrom = StageClock.threadCPUSeconds()
            do {
                try clock.measure(.decode) { () throws(MediaError) in try decoder.seek(to: startAt) }
            } catch {
                queue.put(.failed(error))
                close(decoder)
                return nil
            }
            clock?.addShardCost(.seeking, seconds: StageClock.threadCPUSeconds() - seekingFrom)
            decoder.dropUnneededPictures(before: startAt)
        }
        return ForwardPass(startAt: forwards ? startAt : nil)
    }
}
