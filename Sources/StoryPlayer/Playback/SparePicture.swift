import Compositor
import Foundation

/// The picture a player has just let go of, waiting to be written over by its decode thread.
/// One is enough: the player lets go of one picture for each one it takes, and the thread
/// converts its next frame as soon as the player takes one.
final class SparePicture: @unchecked Sendable {
    private let lock = NSLock()
    private var picture: RGBAImage?

    func put(_ picture: RGBAImage) { lock.withLock { self.picture = picture } }

    func take() -> RGBAImage? {
        lock.withLock {
            defer { picture = nil }
            return picture
        }
    }
}
