import Foundation
import StoryEncode
import StoryMedia
import StoryPlayback

/// A recording (`record`): the render's outputs are the live ones, fed by one encode, and the
/// trace and summary as they go; a room left empty long enough ends it.
extension StoryRenderer {
    /// The sinks of a recording: the trace and summary first, then the encode and its outputs,
    /// then the PNG frames kept (`--frames-every`).
    func recordSinks(_ record: RecordOptions, writer: FrameWriter) throws(RenderError) -> [any FrameSink] {
        let trace = RecordTrace(folder: options.outputFolder, log: outputLog, trace: self.trace) { [unowned self] frames in
            var summary = summarize(frames: frames, framesCovered: frames)
            summary.record = recordFigures(running: true, frames: frames)
            return summary.json
        }
        var sinks: [any FrameSink] = [trace]
        let canvas = storyboard.canvas
        do {
            let encoder = try LiveEncoder(options: record.encoding, width: canvas.width, height: canvas.height, fps: canvas.fps,
                                          startedAt: Date().timeIntervalSince1970, outputs: record.outputs(log: outputLog))
            sinks.append(ClipTrack(recordingInto: ClipQueue(encoder), spareCanvases: writer.spareCanvases))
        } catch {
            throw RenderError(.output, "cannot start the recording", cause: error)
        }
        if let every = record.framesEvery { sinks.append(PNGFrames(writer: writer, folder: options.outputFolder, every: every)) }
        return sinks
    }

    /// The recording's figures now, `frames` into its stream.
    func recordFigures(running: Bool, frames: Int) -> RecordFigures {
        RecordFigures(running: running, frames: frames, lateFrames: lateFramesSoFar, fps: storyboard.canvas.fps,
                      outputs: outputLog.statuses, participants: participantsLastShown)
    }

    /// Notes who is in the rooms on screen (the summary keeps the last seen: at the end the rooms
    /// have closed), and whether they have been empty for `--until-empty` seconds at timeline
    /// time `t`. A room not yet shown, or a story viewer with no room, is not empty.
    func followRooms(at t: Double) -> Bool {
        let stages = players.compactMap { player in player.current?.stage.map { (player.story.id, $0) } }
        if !stages.isEmpty {
            participantsLastShown = stages.flatMap { story, stage in stage.participantStates.map { (story, $0.participant, $0.state) } }
        }
        return roomEmptied(stages.map(\.1), at: t)
    }

    private func roomEmptied(_ stages: [RoomStage], at t: Double) -> Bool {
        guard let wait = options.record?.untilEmpty, !stages.isEmpty else { return false }
        guard stages.allSatisfy({ $0.participantsPresent == 0 }) else {
            emptySince = nil
            return false
        }
        let since = emptySince ?? t
        emptySince = since
        return t - since >= wait
    }
}
