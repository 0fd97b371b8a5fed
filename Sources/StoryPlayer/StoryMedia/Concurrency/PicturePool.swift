import Compositor
import Synchronization

/// Pictures no longer shown, kept to be written over instead of allocating a new one (8 MB and
/// its page faults at 1080x1920): the one way the player and the render recycle storage.
///
/// - A decode thread's convert loop takes the picture its player has just let go of (capacity
///   1: the player lets go of one picture for each one it takes).
/// - The render takes the canvas of a frame whose PNG is written (`FrameWriter`).
/// - A turn's faces take the copies the overlay was drawn into on the frame before.
///
/// Bounded: beyond `capacity` the oldest is let go, so memory stays flat. A picture taken is
/// uniquely held once its last user has dropped it, so writing over it copies nothing.
package final class PicturePool: Sendable {
    private let pictures = Mutex<[RGBAImage]>([])
    private let capacity: Int

    package init(capacity: Int) {
        precondition(capacity >= 1, "a pool holds at least one picture")
        self.capacity = capacity
    }

    /// Keeps `picture` for reuse, letting go of the oldest kept beyond the capacity.
    package func put(_ picture: consuming RGBAImage) {
        let picture = picture
        pictures.withLock { pictures in
            if pictures.count == capacity { pictures.removeFirst() }
            pictures.append(picture)
        }
    }

    /// The picture kept last, of any size (the converter writes over it only if it fits).
    package func take() -> RGBAImage? {
        pictures.withLock { $0.popLast() }
    }

    /// The picture kept last of exactly this size.
    package func take(width: Int, height: Int) -> RGBAImage? {
        pictures.withLock { pictures in
            guard let index = pictures.lastIndex(where: { $0.width == width && $0.height == height }) else { return nil }
            return pictures.remove(at: index)
        }
    }

    /// Lets go of every picture kept.
    package func removeAll() {
        pictures.withLock { $0.removeAll() }
    }
}
