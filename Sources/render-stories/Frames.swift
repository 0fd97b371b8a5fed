import ArgumentParser
import StoryPlayer

struct Frames: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print how many frames a render of the storyboard writes (for splitting it into shards).",
        discussion: "Without a duration in the storyboard this plays the navigation and lifecycle through to the end, without decoding or drawing."
    )

    @Argument(help: "The storyboard JSON file.")
    var storyboard: String

    @Option(help: "Frames per second, overriding the storyboard's.")
    var fps: Double?

    @Option(help: ArgumentHelp("Timeline seconds, overriding the storyboard's.", valueName: "seconds"))
    var duration: Double?

    func run() throws {
        let board = try Storyboard(contentsOf: storyboard).overriding(fps: fps, duration: duration)
        do {
            print(try StoryRender.countFrames(board))
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
    }
}
