/// Collects the errors of one storyboard as it is read, so that reading can go on past a
/// mistake and report them all together.
///
/// Values with an error are left at their defaults and reading continues; an object that
/// cannot be read at all (a story that is not an object, an item without `uri`) is skipped at
/// the nearest point that can go on without it: the block, the story, the item or the action.
/// Each reader of one storyboard shares the one instance; it never leaves the parsing thread.
package final class StoryboardProblems {
    private(set) var errors: [StoryboardError] = []
    private var unreported = 0

    var isEmpty: Bool { errors.isEmpty }

    package init() {}

    /// Notes an error (and any it carries in `also`), once: a value that is both of the wrong
    /// type and then required is reported by its type alone.
    func record(_ error: StoryboardError) {
        for single in error.all where !errors.contains(single) {
            if errors.count < StoryboardError.reportLimit {
                errors.append(single)
            } else {
                unreported += 1
            }
        }
        unreported += error.unreported
    }

    /// Runs `body`; an error it throws is noted and the result is nil, so the caller goes on
    /// without that part.
    func attempt<T>(_ body: () throws(StoryboardError) -> T) -> T? {
        do {
            return try body()
        } catch {
            record(error)
            return nil
        }
    }

    /// Throws every error noted so far as one ``StoryboardError``, if there is any.
    package func check() throws(StoryboardError) {
        guard var first = errors.first else { return }
        first.also = Array(errors.dropFirst())
        first.unreported = unreported
        throw first
    }
}
