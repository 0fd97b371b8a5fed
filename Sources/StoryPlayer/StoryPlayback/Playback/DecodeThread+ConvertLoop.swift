import Compositor
import StoryBase
import StoryMedia
import StoryModel

extension DecodeThread {
    /// The convert loop, owned by the convert thread: it turns decoded pictures into RGBA for the
    /// player and passes every other event on, in order.
    struct ConvertLoop {
        let isLive: Bool
        let width: Int
        let height: Int
        /// Each picture fitted whole in `width`×`height` at its own shape's size (a room's large
        /// area: a live camera's shape is known only from its pictures), not covering it.
        let fitsWhole: Bool
        /// How a picture of another shape fills the canvas (the item's `fit`): with `contain`
        /// or `blur` it is converted whole at its own shape's size, then framed at the canvas's.
        let fit: PictureFit
        let clock: StageClock?
        /// The item's curve for HDR pictures.
        let toneMap: ToneMapCurve
        let decoded: BoundedQueue<DecodedEvent>
        let queue: BoundedQueue<DecodedEvent>
        let spares: PicturePool
        let skip: SkipBefore

        func run() {
            // The time line of the pictures passing through: `.discontinuity` events start the next.
            var epoch = 0
            let converter = PictureConverter()
            converter.toneMapCurve = toneMap
            defer {
                converter.close()
                // Pictures the decode thread queued after the player stopped are freed with us.
                decoded.close()
                while decoded.tryTake() != nil {}
            }
            while let event = decoded.take() {
                guard case .decoded(let time, let picture, let spans) = event else {
                    if case .discontinuity(let next, _, _, _, _) = event { epoch = next }
                    guard queue.put(event) else { return }
                    continue
                }
                // A live picture whose time the player has passed is not worth converting. The
                // first one is kept whatever its time: it carries the first-frame spans.
                if isLive, spans == nil, skip.passesOver(time, epoch: epoch) { continue }
                // Convert only once the queue has room: a converted picture held while the queue is
                // full is one more canvas per player (8 MB at 1080x1920).
                guard queue.waitForRoom() else { return }
                let image: RGBAImage
                do {
                    image = try clock.measure(.convert) { () throws(MediaError) in
                        guard fitsWhole else {
                            return try converter.rgba(picture, fit: fit, width: width, height: height, reusing: spares.take())
                        }
                        let size = RoomLayout.fitted(picture.shownSize, within: (width, height))
                        return try converter.rgba(picture, width: size.width, height: size.height, reusing: spares.take())
                    }
                } catch {
                    queue.put(.failed(error))
                    return
                }
                guard queue.put(.picture(time: time, image: image, spans: spans)) else { return }
            }
        }
    }
}
