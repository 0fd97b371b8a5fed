import Foundation
// Scratch folders and package paths, shared with the other test targets. Exported so that every
// test file of this target sees them without an import of its own.
@_exported import StoryTestSupport

/// Runs the built `render-stories` and collects its exit status and output.
struct CommandLineRunner {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    var demo: String { CommandLineTests.packageRoot.appendingPathComponent("samples/demo.json").path }

    func run(_ arguments: [String], in folder: String? = nil) throws -> Outcome {
        let paths = CommandLineTests.self
        let outcome = try ExternalProgram.outcome(TestPrograms.renderStories, arguments, in: folder ?? paths.packageRoot.path)
        return Outcome(status: outcome.status, stdout: String(decoding: outcome.stdout, as: UTF8.self),
                       stderr: String(decoding: outcome.stderr, as: UTF8.self))
    }

    /// A storyboard in `folder` of one story of the sample beach clip, small and short.
    func smallBoard(in folder: ScratchFolder, duration: Double = 1) throws -> String {
        let board = folder.file("small.json")
        let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path
        try Data(#"{"duration": \#(duration), "canvas": {"width": 72, "height": 128, "fps": 10}, "stories": [{"id": "b", "items": [{"uri": "\#(samples)/beach.mp4"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        return board
    }

}

/// The video packets of an MP4, as ffprobe counts them: how many frames a joined clip holds.
func videoPacketCount(_ clip: String) throws -> String {
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
    probe.arguments = ["-v", "error", "-count_packets", "-select_streams", "v", "-show_entries", "stream=nb_read_packets",
                       "-of", "csv=p=0", clip]
    let output = Pipe()
    probe.standardOutput = output
    try probe.run()
    let packets = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    probe.waitUntilExit()
    return packets.trimmingCharacters(in: .whitespacesAndNewlines)
}
