import ArgumentParser
import Compositor
import StoryPlayer

extension PlatformSafeZones: ExpressibleByArgument {}

struct CheckLayout: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-layout",
        abstract: "Warn when a storyboard's text (captions) falls inside a platform's UI zones.",
        discussion: """
        Each platform covers parts of a 9:16 screen with its own UI: reels keeps the top 14 %, \
        the bottom 35 % and 6 % at each side clear; stories the top 14 % and the bottom 20 %; \
        tiktok its right rail, the lower 20 % and the top 10 %. Prints one line per element \
        inside a zone (JSON path: what, where) and exits 1 if there is any, 0 if there is none, \
        2 for a usage or storyboard error. Captions are placed as `render` places them: 20 % \
        above the bottom and 6 % in at the sides, or inside a platform's safe area with --safe-zones \
        (as `render --preset NAME` places them for reels, stories and tiktok), and each caption's box \
        is measured as libass draws it, after wrapping: a long cue wrapped onto five lines is five \
        lines high. `render --preset` says the same lines as notices. The overlay draws no text \
        (progress segments only), so it is not checked.

        Example:
          render-stories check-layout board.json --platform reels
        """
    )

    @Argument(help: "The storyboard JSON file.")
    var storyboard: String

    @OptionGroup var parameters: ParameterArguments

    @Option(help: "The platform whose zones to check against.")
    var platform: PlatformSafeZones

    @Option(help: ArgumentHelp("Check captions placed as `render --safe-zones NAME` places them.", valueName: "NAME"))
    var safeZones: PlatformSafeZones?

    @Option(help: ArgumentHelp("Canvas size, overriding the storyboard's.", valueName: "WxH"))
    var size: CanvasSize?

    func validate() throws {
        if let problem = size?.problem { throw ValidationError(problem) }
    }

    func run() throws {
        let board = try Storyboard(contentsOf: storyboard, parameters: parameters.values).overriding(width: size?.width, height: size?.height)
        try board.checkCaptions()
        for file in board.missingLocalFiles { printError("warning: \(file)") }
        let warnings = board.layoutWarnings(for: platform, captionsPlacedFor: safeZones)
        for warning in warnings { print(warning) }
        guard warnings.isEmpty else {
            if safeZones == nil {
                printError("note: `render --safe-zones \(platform.rawValue)` (or --preset \(platform.rawValue)) places captions inside \(platform.possessive) safe area")
            }
            throw ExitCode(1)
        }
        print("ok: no text in \(platform.possessive) zones")
    }
}
