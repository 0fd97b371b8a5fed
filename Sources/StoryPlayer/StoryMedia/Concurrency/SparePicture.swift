import Compositor
import Synchronization

/// The picture a player has just let go of, waiting to be written over by its decode thread.
/// One is enough: the player lets go of one picture for each one it takes, and the thread
/// converts its next frame as soon as the player takes one.
package final class SparePicture: Sendable {
    private let picture = Mutex<RGBAImage?>(nil)

    package init() {}

    package func put(_ picture: RGBAImage) { self.picture.withLock { $0 = picture } }

    package func take() -> RGBAImage? {
        picture.withLock { picture in
            defer { picture = nil }
            return picture
        }
    }
}
