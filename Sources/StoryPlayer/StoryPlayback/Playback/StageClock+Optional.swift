import Compositor
import StoryBase

extension Optional where Wrapped == StageClock {
    /// Runs `body`, charging its CPU time to `stage` when there is a clock (renders have one;
    /// a player used on its own, as in the lifecycle benchmark, does not).
    package func measure<T, E: Error>(_ stage: PipelineStage, _ body: () throws(E) -> T) throws(E) -> T {
        switch self {
        case let clock?: try clock.measure(stage, body)
        case nil: try body()
        }
    }
}
