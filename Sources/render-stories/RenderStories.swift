import ArgumentParser
import Foundation
import StoryPlayer

@main
struct RenderStories: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-stories",
        abstract: "Render story viewers (photos, videos, live streams, cube swipes) to PNG frames, offscreen.",
        discussion: """
        A storyboard is a JSON file listing stories, their items, and a script of gestures (swipe, \
        drag, release, tap). `render` plays it on a virtual phone and writes every frame, a trace of \
        what each player did (lifecycle.jsonl) and a summary.json. `check` verifies the trace: \
        players are created on play and dropped on stop, never reused, and at most two are alive.

        A first storyboard (paths are relative to the file; every key is in docs/storyboard.md):
          {"canvas": {"width": 720, "height": 1280, "fps": 30},
           "stories": [
             {"id": "beach", "items": [{"uri": "beach.mp4"},
                                       {"uri": "sunset.jpg", "duration": 3}]},
             {"id": "city", "items": [{"uri": "city.mp4"}]}],
           "script": [{"at": 2.0, "action": "swipe", "direction": "next"}]}

        Examples:
          render-stories render board.json --output out/board
          render-stories still board.json --page 0.5 --time 1.2 --output mid.png
          render-stories check out/board/lifecycle.jsonl
          render-stories timeline out/board/lifecycle.jsonl --output lifecycle.png
          render-stories report out/board        # out/board/report.html
          render-stories probe https://example.com/live/index.m3u8
          render-stories check-layout board.json --platform reels

        Exit codes: 0 success; 1 output cannot be written, or `check` found violations, or `check-layout` text in a platform's zones; \
        2 usage or storyboard error; 3 a story failed and --strict was given.
        """,
        // The libraries' lines are made only for `--version` itself (`main`): naming libheif's
        // version opens it, which a render without HEIF photos never needs, and argument-parser
        // builds this configuration for every command.
        version: "render-stories \(LiveStoriesVersion.version)",
        subcommands: [Render.self, Record.self, Batch.self, Still.self, Check.self, CheckPreset.self, CheckLayout.self, Timeline.self, Report.self, Compare.self, Probe.self, Frames.self, Merge.self] + studioCommand,
        defaultSubcommand: Render.self
    )

    /// argument-parser exits 64 on usage errors; this tool promises 2 for usage and storyboard errors.
    static func main() {
        ProcessMemory.returnLargeBuffersToTheSystem()
        StandardError.ignoreClosedPipes()
        // `help NAME` of a command that does not exist prints the overview and exits 0 in
        // argument-parser; it is a usage error here.
        let arguments = CommandLine.arguments.dropFirst()
        if Array(arguments) == ["--version"] {
            print(LiveStoriesVersion.description)
            return
        }
        if arguments.first == "help", let name = arguments.dropFirst().first,
           !configuration.subcommands.contains(where: { $0._commandName == name }) {
            StandardError.write("error: no command \"\(name)\" (try: render-stories help)\n")
            Foundation.exit(2)
        }
        // `render` is the default command, so a mistyped command (`rendr board.json`) would be
        // read as a storyboard path followed by an unexpected argument. A first argument that is
        // no file and a letter or two from a command's name is that command, mistyped.
        if let first = arguments.first, !first.hasPrefix("-"), !FileManager.default.fileExists(atPath: first),
           let near = RenderStories.commandNamed(near: first) {
            StandardError.write("error: no command \"\(first)\"; did you mean \"\(near)\"? (try: render-stories help)\n")
            Foundation.exit(2)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as StoryboardError {
            // Every error of the storyboard, one per line, so each can be found by its path.
            let lines = "\(error)".split(separator: "\n").map { "error: \($0)\n" }
            StandardError.write(lines.joined())
            Foundation.exit(2)
        } catch {
            let code = exitCode(for: error)
            // Help is argument-parser's to print, on stdout.
            guard code != .success else { exit(withError: error) }
            let message = RenderStories.spelledAsTheTool(fullMessage(for: error))
            if !message.isEmpty { StandardError.write(message + "\n") }
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }

    /// argument-parser starts its messages with "Error: "; the tool's own, like most command-line
    /// tools', with "error: ": one spelling, so a script or a reader looks for one.
    static func spelledAsTheTool(_ message: String) -> String {
        message.hasPrefix("Error: ") ? "error: " + message.dropFirst("Error: ".count) : message
    }
}

extension RenderStories {
    /// The command whose name `word` is one or two edits from (a typo), if one is; a word that
    /// is a command's name, or a path, is not.
    static func commandNamed(near word: String) -> String? {
        guard !word.contains("/"), !word.contains(".") else { return nil }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(word) else { return nil }
        return names.map { (name: $0, distance: ObjectReader.editDistance($0, word)) }
            .filter { $0.distance <= min(2, max(1, $0.name.count / 3)) }
            .min { ($0.distance, $0.name) < ($1.distance, $1.name) }?.name
    }
}

/// `studio` when the build has the StoryStudio target (Package.swift, LIVE_STORIES_NO_STUDIO).
#if STORY_STUDIO
let studioCommand: [ParsableCommand.Type] = [Studio.self]
#else
let studioCommand: [ParsableCommand.Type] = []
#endif

/// Prints to stderr, where messages go so that stdout stays clean for scripts.
func printError(_ message: String) {
    StandardError.write(message + "\n")
}
