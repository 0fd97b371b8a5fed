import Compositor
import Dispatch
import StoryPlayer
import Synchronization

/// Draws the frames the page asks for, as PNG, one at a time on a queue of their own (so the
/// server's threads never wait on the rasterizer).
///
/// A warm stepper is kept for each size: playing forward costs one render-loop step per frame;
/// a seek backwards or an edit makes a new one, which fast-forwards without decoding.
final class StudioFrames: Sendable {
    struct Key: Hashable {
        let version: Int
        let half: Bool
        /// `StudioLive.generation`: a live picture that arrived makes a new preview.
        let live: Int
    }

    /// What a frame request gets back: the PNG, and what each live story on screen shows.
    struct Picture: Sendable {
        let png: [UInt8]
        let width: Int
        let height: Int
        /// The live stories on screen in this frame (their ids).
        let live: [String]
    }

    let live: StudioLive

    init(live: StudioLive) {
        self.live = live
    }

    private let queue = DispatchQueue(label: "studio frames", qos: .userInitiated)
    private let slots = Mutex<[Key: StepperSlot]>([:])

    /// The frame the page asked for last, and the last picture drawn: after an edit the frame
    /// shown is drawn again at once (`prepare`), while the page is still reading the new state,
    /// so its request finds it ready.
    private struct Recent {
        var asked: (frame: Int, half: Bool)?
        var drawn: (key: Key, frame: Int, picture: Picture)?
    }
    private let recent = Mutex(Recent())

    /// Draws again, for `board`, the frame the page showed last.
    func prepare(_ board: StudioBoard) {
        guard let asked = recent.withLock({ $0.asked }) else { return }
        queue.async { _ = try? self.cachedDraw(asked.frame, of: board, half: asked.half) }
    }

    /// Frame `index` of `board`, at its size or half of it.
    func picture(_ index: Int, of board: StudioBoard, half: Bool) async throws(StudioProblem) -> Picture {
        recent.withLock { $0.asked = (index, half) }
        let result: Result<Picture, StudioProblem> = await withCheckedContinuation { done in
            queue.async {
                done.resume(returning: Result { () throws(StudioProblem) -> Picture in try self.cachedDraw(index, of: board, half: half) })
            }
        }
        return try result.get()
    }

    /// On the queue: the picture drawn last if it is this one, else a new one.
    private func cachedDraw(_ index: Int, of board: StudioBoard, half: Bool) throws(StudioProblem) -> Picture {
        let key = Key(version: board.version, half: half, live: live.generation)
        let frame = min(max(0, index), board.frameCount - 1)
        if let drawn = recent.withLock({ $0.drawn }), drawn.key == key, drawn.frame == frame { return drawn.picture }
        let picture = try draw(frame, of: board, half: half)
        recent.withLock { $0.drawn = (key, frame, picture) }
        return picture
    }

    private func draw(_ index: Int, of board: StudioBoard, half: Bool) throws(StudioProblem) -> Picture {
        let key = Key(version: board.version, half: half, live: live.generation)
        let frame = min(max(0, index), board.frameCount - 1)
        do {
            // Steppers of an older version (or live picture) hold players and decoders for nothing,
            // and one past the frame asked for cannot go back.
            var retired: [StepperSlot] = []
            var slot = slots.withLock { slots -> StepperSlot? in
                for old in slots.keys where old.version != key.version || old.live != key.live {
                    retired.append(slots.removeValue(forKey: old)!)
                }
                return slots[key]
            }
            if let current = slot, current.nextFrame > frame {
                retired.append(current)
                slot = nil
            }
            // Closing waits for the old stepper's posters and probes: not on a seek's path.
            for old in retired { DispatchQueue.global(qos: .utility).async { old.close() } }
            if slot == nil {
                let preview = live.preview(StudioFrames.sized(board.board, half: half))
                let fresh = StepperSlot(try FrameStepper(storyboard: preview, frameCount: board.frameCount))
                slots.withLock { $0[key] = fresh }
                slot = fresh
            }
            let (image, onScreen) = try slot!.draw(frame)
            // Item 7: a live story's source is opened only once its story is on screen here.
            let ids = Set(onScreen.map { board.board.stories[$0].id })
            live.onScreen(ids, of: board.board)
            let liveOnScreen = board.liveStories.filter { ids.contains($0) }
            // The fastest PNG the coder has (level 1, Up, run-length, as `render` writes); no
            // JPEG encoder is linked, and libavcodec's mjpeg is not reachable from outside
            // StoryPlayer, so a drag gets a half-size PNG.
            let png = try image.pngData(PNGOptions())
            return Picture(png: png, width: image.width, height: image.height, live: liveOnScreen)
        } catch let error as RenderError {
            throw StudioProblem(.frame, "cannot draw frame \(frame)", cause: error.message)
        } catch {
            throw StudioProblem(.frame, "cannot encode frame \(frame)", cause: "\(error)")
        }
    }

    /// The storyboard at half its size while the scrubber is dragged.
    static func sized(_ board: Storyboard, half: Bool) -> Storyboard {
        guard half else { return board }
        let width = max(Canvas.sides.lowerBound, board.canvas.width / 2 / 2 * 2)
        let height = max(Canvas.sides.lowerBound, board.canvas.height / 2 / 2 * 2)
        return board.overriding(width: width, height: height)
    }

    /// Lets every player go (the server is stopping).
    func close() {
        for slot in slots.withLock({ slots in defer { slots.removeAll() }; return Array(slots.values) }) { slot.close() }
    }
}

/// A stepper in a box of its own, so that one no longer wanted can be closed on another
/// thread while the next frame is drawn (a `FrameStepper` is not `Sendable`; its lock is).
final class StepperSlot: Sendable {
    private let stepper: Mutex<FrameStepper>

    init(_ stepper: sending FrameStepper) {
        self.stepper = Mutex(stepper)
    }

    var nextFrame: Int { stepper.withLock { $0.nextFrame } }

    /// Frame `index`, and the stories on screen in it.
    func draw(_ index: Int) throws(RenderError) -> (RGBAImage, [Int]) {
        try stepper.withLock { stepper throws(RenderError) in (try stepper.frame(index), stepper.storiesOnScreen) }
    }

    func close() { stepper.withLock { $0.close() } }
}
