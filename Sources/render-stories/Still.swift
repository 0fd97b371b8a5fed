import ArgumentParser
import Compositor
import Foundation
import StoryPlayer

struct Still: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render the one frame shown at a page offset, e.g. the middle of a cube turn.",
        discussion: """
        Page offset P is the scroll position in pages: 0 rests on the first story, 0.5 is halfway \
        from the first to the second. Every visible story shows its first item at media time T, \
        with its picture decoded; --item N shows another item of the story the page rests on. \
        The states a designer previews: --drag 0.3 (the pages held 30 % towards the next story), \
        --pull 0.4 (the story pulled 40 % of the way down to dismiss it).

        Examples:
          render-stories still board.json --page 0.5 --time 1.2 --output mid-turn.png
          render-stories still board.json --page 1 --item 2 --time 0.5 --output third-item.png
          render-stories still board.json --page 0 --pull 0.4 --output dismissing.png
        """
    )

    @Argument(help: "The storyboard JSON file.")
    var storyboard: String

    @OptionGroup var parameters: ParameterArguments

    @Option(parsing: .unconditional, help: ArgumentHelp("Page offset, from 0 to the number of stories − 1.", valueName: "P"))
    var page: Double

    // Unconditional, so that `--time -1` is read as a (bad) time, not as a missing value
    // followed by an unknown option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Media time in seconds of every visible story, 0 or more.", valueName: "T"))
    var time: Double = 0

    @Option(help: ArgumentHelp("Show this item (from 0) of the story the page rests on or turns from; the others show their first.",
                               valueName: "N"))
    var item = 0

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The pages dragged this far from --page (−1 to 1, positive towards the next story), as a finger holds them mid-drag.",
                               valueName: "P"))
    var drag: Double = 0

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The story pulled down this far to dismiss it (0 to 1 of the screen), over the backdrop.", valueName: "P"))
    var pull: Double = 0

    @Option(name: .shortAndLong, help: ArgumentHelp("The PNG to write.", valueName: "file"))
    var output = "still.png"

    @Option(help: ArgumentHelp("Canvas size, overriding the storyboard's.", valueName: "WxH"))
    var size: CanvasSize?

    @Flag(help: "Draw no UI over the stories.")
    var noOverlay = false

    @Flag(help: "Draw only what lies over the stories (layers, progress segments, captions) over transparency, as render --overlay-only does; the PNG keeps its alpha.")
    var overlayOnly = false

    @Option(help: ArgumentHelp("Draw this platform's UI zones as a translucent guide (reels, stories or tiktok), and place captions inside its safe area.", valueName: "NAME"))
    var safeZones: PlatformSafeZones?

    @OptionGroup var background: BackgroundArguments

    @OptionGroup var png: PNGArguments

    func validate() throws {
        if let problem = size?.problem { throw ValidationError(problem) }
        guard time >= 0 else { throw ValidationError("--time must be ≥ 0 (got \(time))") }
        guard item >= 0 else { throw ValidationError("--item must be 0 or more (got \(item))") }
        guard drag >= -1 && drag <= 1 else { throw ValidationError("--drag must be from -1 to 1 (got \(drag))") }
        guard pull >= 0 && pull <= 1 else { throw ValidationError("--pull must be from 0 to 1 (got \(pull))") }
        if overlayOnly && background.color != nil {
            throw ValidationError("--overlay-only draws nothing behind the stories: not with --background")
        }
        try requirePNGName("--output", output)
    }

    func run() throws {
        let signals = SignalEnd()
        defer { signals.cancel() }
        do {
            try Typeface.checkAvailable()
        } catch {
            printError("error: cannot draw text: \(error)")
            throw ExitCode(1)
        }
        let board = try Storyboard(contentsOf: storyboard, parameters: parameters.values).overriding(width: size?.width, height: size?.height,
                                                                     background: background.color)
        // Its folder is made as render makes its outputs' folders, and a path that cannot be
        // written is said before the picture is decoded.
        do {
            try OutputFolder.make(forFile: output)
        } catch {
            printError("error: cannot write \(output): \(error)")
            throw ExitCode(1)
        }
        try board.checkCaptions()
        let still = try StillRender.render(board, pageOffset: page + drag, time: time,
                                           state: StillRender.ViewerState(item: item, pull: pull),
                                           overlay: !noOverlay, overlayOnly: overlayOnly, safeZones: safeZones)
        for problem in still.problems { printError("story failed: \(problem)") }
        for participant in still.failedParticipants { printError("participant failed: \(participant)") }
        var image = still.image
        // As `render` writes its frames: without --alpha, transparent parts over black.
        let keepsAlpha = png.alpha || overlayOnly
        if !keepsAlpha && !board.canvas.background.isOpaque { image.flattenAlpha() }
        var options = png.options
        options.keepAlpha = keepsAlpha
        do {
            try image.writePNG(to: output, options: options)
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        print("wrote \(output)")
    }
}
