import Compositor

extension DecodeThread {
    /// The convert loop, owned by the convert thread: it turns decoded pictures into RGBA for the
    /// player and passes every other event on, in order.
    struct ConvertLoop {
        let isLive: Bool
        let width: Int
        let height: Int
        let clock: StageClock?
        let decoded: BoundedQueue<DecodedEvent>
        let queue: BoundedQueue<DecodedEvent>
        let spares: SparePicture

        func run() {
            let converter = PictureConverter()
            defer {
                converter.close()
                // Pictures the decode thread queued after the player stopped are freed with us.
                decoded.close()
                while decoded.tryTake() != nil {}
            }
            while let event = decoded.take() {
                guard case .decoded(let time, let picture, let spans) = event else {
                    guard queue.put(event) else { return }
                    continue
                }
                // Convert only once the queue has room: a converted picture held while the queue is
                // full is one more canvas per player (8 MB at 1080x1920). A live picture does not
                // wait: it replaces one not yet shown.
                if !isLive { guard queue.waitForRoom() else { return } }
                let image: RGBAImage
                do {
                    image = try clock.measure(.convert) { () throws(MediaError) in
                        try converter.rgba(picture, width: width, height: height, reusing: spares.take())
                    }
                } catch {
                    queue.put(.failed(error))
                    return
                }
                let event = DecodedEvent.picture(time: time, image: image, spans: spans)
                let accepted = !isLive ? queue.put(event) : queue.put(event) { last in
                    // The newer picture takes the older one's place, and its spans if it was the
                    // first; the older one's storage becomes the next spare.
                    guard case .picture(_, let older, let olderSpans) = last else { return nil }
                    spares.put(older)
                    return .picture(time: time, image: image, spans: olderSpans ?? spans)
                }
                guard accepted else { return }
            }
        }
    }
}
