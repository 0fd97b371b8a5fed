import StoryBase
import StoryModel
import StoryEncode

/// A recording's running figures, in `summary.json`'s `"record"`: rewritten every ten seconds
/// while it runs (`"running": true`) and once at the end.
public struct RecordFigures: Sendable {
    public var running: Bool
    /// Frames in the recording's stream, repeated late frames included: 30 a second at 30 fps.
    public var frames: Int
    /// Frames the realtime clock was too late to draw (each the frame before it again).
    public var lateFrames: Int
    /// Seconds of stream: frames / fps.
    public var seconds: Double
    package var outputs: [OutputStatus]
    public var participants: [(story: String, participant: String, state: String)]
    public var cpuSeconds: Double
    public var rssMegabytes: Double
    public var threads: Int
    public var openFiles: Int

    init(running: Bool, frames: Int, lateFrames: Int, fps: Double, outputs: [OutputStatus],
         participants: [(story: String, participant: String, state: String)]) {
        self.running = running
        self.frames = frames
        self.lateFrames = lateFrames
        seconds = fps > 0 ? Double(frames) / fps : 0
        self.outputs = outputs
        self.participants = participants
        let process = ProcessFigures.now()
        cpuSeconds = process.cpuSeconds
        rssMegabytes = process.rssMegabytes
        threads = process.threads
        openFiles = process.openFiles
    }

    var json: String {
        let outputFields = outputs.map {
            "{\"output\": \(JSONText.string($0.output)), \"state\": \(JSONText.string($0.state.rawValue)), \"bytes\": \($0.bytes), "
                + "\"dropped_ms\": \(JSONText.number($0.droppedMilliseconds))}"
        }
        let participantFields = participants.map {
            "{\"story\": \(JSONText.string($0.story)), \"participant\": \(JSONText.string($0.participant)), \"state\": \(JSONText.string($0.state))}"
        }
        return "{\"running\": \(running), \"frames\": \(frames), \"late_frames\": \(lateFrames), \"seconds\": \(JSONText.number(seconds)), "
            + "\"outputs\": [\(outputFields.joined(separator: ", "))], \"participants\": [\(participantFields.joined(separator: ", "))], "
            + "\"cpu_seconds\": \(JSONText.number(cpuSeconds)), \"rss_mb\": \(JSONText.number(rssMegabytes)), "
            + "\"threads\": \(threads), \"fds\": \(openFiles)}"
    }
}
