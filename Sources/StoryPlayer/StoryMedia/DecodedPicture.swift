internal import CFFmpeg
import Foundation
import Compositor
import StoryModel

/// A decoded picture with its presentation time, still in the source's pixel format, and how
/// its stream is to be shown (turned, stretched).
///
/// Sendable because it is handed over whole: the decode thread makes it, queues it, and keeps
/// no reference; from then on only the converting thread touches the frame. The frame's buffers
/// are reference-counted by FFmpeg, so freeing it there, after the decoder closed, is safe.
package final class DecodedPicture: @unchecked Sendable {
    let frame: Frame
    /// Seconds from the stream's start.
    package let time: Double
    /// How to show it upright: its stream's display matrix, or the picture's own EXIF.
    let orientation: PictureOrientation
    /// Clockwise quarter turns the picture asks for.
    var quarterTurns: Int { orientation.quarterTurns }
    /// The stream's pixel aspect ratio, for frames that do not carry their own.
    let sampleAspectRatio: Double

    /// Its size as shown: stretched by its pixel aspect ratio and turned upright, as
    /// `PictureConverter.rgba` shows it.
    package var shownSize: (width: Int, height: Int) {
        let aspect = frame.sampleAspectRatio
        let sar = aspect.num > 0 && aspect.den > 0 ? av_q2d(aspect) : sampleAspectRatio
        let width = Int((Double(frame.width) * sar).rounded()), height = Int(frame.height)
        return quarterTurns % 2 == 1 ? (height, width) : (width, height)
    }

    /// The bytes its planes take (`av_image_get_buffer_size`, rows unpadded): what holding it
    /// costs; 0 for a format FFmpeg cannot size.
    package var byteCount: Int {
        Int(max(0, av_image_get_buffer_size(frame.pixelFormat, frame.width, frame.height, 1)))
    }

    init(frame: Frame, time: Double, orientation: PictureOrientation = .upright, sampleAspectRatio: Double = 1) {
        self.frame = frame
        self.time = time
        self.orientation = orientation
        self.sampleAspectRatio = sampleAspectRatio
    }
}
