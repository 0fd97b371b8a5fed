import ArgumentParser
import Compositor
import StoryPlayer

struct Timeline: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a lifecycle trace as a picture: did the players behave?",
        discussion: """
        One lane per story, time running left to right; a bar per player from play to stop, \
        labelled with its id and hatched red when the player failed; marks for firstFrame (green), \
        ended (blue), failed (red) and reconnect (orange); a shaded band wherever two players are \
        alive, and a red band wherever more than --max-alive are; a legend under the lanes. A live \
        room's audio-only players have a lane per participant under the room's, counted apart as \
        check counts them: red where more than --max-audio are alive. Axis labels are thinned \
        until they fit the width.
        """
    )

    @Argument(help: "A lifecycle.jsonl written by render.")
    var trace: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The PNG to write.", valueName: "file"))
    var output = "lifecycle.png"

    @Option(parsing: .unconditional, help: "More players alive than this is marked red.")
    var maxAlive = 2

    @Option(parsing: .unconditional, help: "More audio-only players (a live room's participants) alive than this is marked red. Default: no bound.")
    var maxAudio: Int?

    @Option(parsing: .unconditional, help: "Picture width in pixels.")
    var width = 1200

    func validate() throws {
        try requirePNGName("--output", output)
        guard maxAlive >= 1 else { throw ValidationError("--max-alive must be at least 1") }
        if let maxAudio, maxAudio < 0 { throw ValidationError("--max-audio must be 0 or more") }
        guard (300...8000).contains(width) else { throw ValidationError("--width must be 300 to 8000") }
    }

    func run() throws {
        let signals = SignalEnd()
        defer { signals.cancel() }
        // A trace that cannot be read, or holds no event, is a usage error (2), as `check` says;
        // 1 is for an output that cannot be written.
        let events: [TraceEvent]
        do {
            let text = String(decoding: try AtomicFile.read(trace), as: UTF8.self)
            events = LifecycleTimeline.events(fromJSONLines: text)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        guard !events.isEmpty else {
            printError("error: \(trace) holds no lifecycle events (render writes them into lifecycle.jsonl)")
            throw ExitCode(2)
        }
        do {
            try Typeface.checkAvailable()
            try OutputFolder.make(forFile: output)
            try LifecycleTimeline.render(events, maxAlive: maxAlive, maxAudio: maxAudio, width: width).writePNG(to: output)
            print("wrote \(output)")
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
    }
}
