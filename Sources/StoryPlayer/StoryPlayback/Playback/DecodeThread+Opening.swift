import Compositor
import Foundation
import StoryBase
import StoryLive
import StoryMedia
import StoryModel

extension DecodeThread.Worker {
    /// Opens the source: a live one through its protocol (`LiveSource`), which may read what it
    /// needs first (a playlist) and watches its edge beside the demuxer (`PlaylistWatch`).
    func open(epoch: Int) throws(MediaError) -> (MediaDecoder, PlaylistWatch?) {
        try live?.prepare(limits: limits, gate: gate, watchGate: watchGate)
        // Opening reads the stream information, which decodes a few frames: decode work.
        let decoder = try clock.measure(.decode) { () throws(MediaError) in
            try MediaDecoder(source: source, limits: limits, gate: gate, isLive: isLive, reception: reception, live: live)
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
        let watch = live?.watch(beside: decoder, epoch: epoch, edge: edge, gate: watchGate, timeout: limits.timeouts.open,
                                name: playlistName)
        return (decoder, watch)
    }

    /// A source of sound only: its one picture (`SoundOnlyStill`), shown from media time 0 for
    /// as long as the sound lasts (`ItemLength`), then the end of its data. The player reads
    /// the sound from the file itself (`ItemAudio`), as it does a video's; the first-frame
    /// spans are those of that picture, which shows when the sound starts.
    func show(_ still: SoundOnlyStill, over decoder: MediaDecoder) {
        let openMs = milliseconds(since: started)
        var facts = MediaFacts(decoder, isLive: false, live: nil)
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
        // A trimmed clip's play starts where its cut does, as a shard's does mid-item.
        let forwards = (startAt > 0 || decoder.startsMidFile) && !decoder.isStill && !isLive
        if forwards {
            let seekingFrom = StageClock.threadCPUSeconds()
            do {
                try clock.measure(.decode) { () throws(MediaError) in try decoder.seek(to: startAt) }
            } catch {
                queue.put(.failed(error))
                close(decoder)
                return nil
            }
            if startAt > 0 { clock?.addShardCost(.seeking, seconds: StageClock.threadCPUSeconds() - seekingFrom) }
            decoder.dropUnneededPictures(before: startAt)
        }
        return ForwardPass(startAt: forwards && startAt > 0 ? startAt : nil)
    }
}
