internal import CFFmpeg
import Foundation

// MARK: - Where FFmpeg says how a picture is turned

extension PictureOrientation {
    /// A stream's display matrix (a phone video's rotation); nil without one.
    static func of(_ stream: UnsafeMutablePointer<AVStream>) -> PictureOrientation? {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size) else { return nil }
        return matrix(UnsafeRawPointer(data), size: size)
    }

    /// A decoded picture's own orientation: the display matrix FFmpeg's MJPEG decoder makes of a
    /// JPEG's EXIF Orientation (FFmpeg 5.1 and later), else the EXIF tag it copies into the
    /// frame's metadata (decoders that export only that); nil when the frame says nothing.
    static func of(_ frame: UnsafeMutablePointer<AVFrame>) -> PictureOrientation? {
        if let side = av_frame_get_side_data(frame, AV_FRAME_DATA_DISPLAYMATRIX), let data = side.pointee.data {
            return matrix(UnsafeRawPointer(data), size: Int(side.pointee.size))
        }
        guard let entry = av_dict_get(frame.pointee.metadata, "Orientation", nil, 0), let value = entry.pointee.value else {
            return nil
        }
        // FFmpeg writes the EXIF short right-aligned ("    6").
        let text = String(cString: value).trimmingCharacters(in: .whitespaces)
        return Int(text).flatMap { PictureOrientation(exif: $0) }
    }

    /// Nine 32-bit values, when `size` holds them all.
    private static func matrix(_ data: UnsafeRawPointer, size: Int) -> PictureOrientation? {
        guard size >= 9 * MemoryLayout<Int32>.size else { return nil }
        return PictureOrientation(displayMatrix: (0..<9).map { data.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self) })
    }
}
