/// How a picture of another shape than the screen fills it (an item's `fit`, the canvas's
/// default): a landscape clip in a portrait story.
public enum PictureFit: String, Sendable, CaseIterable {
    /// Scaled to cover the screen, the overflow cut off, centred (the phone apps' default).
    case cover
    /// Whole, centred, over black bars.
    case contain
    /// Whole, centred, over a blurred and darkened copy of itself scaled to cover the screen,
    /// as a room shows a camera of another shape (`RoomPicture.fitted`).
    case blur

    /// `picture`, already scaled to fit whole in `width`×`height` (its shape kept), set in a
    /// picture of that size as this fit shows it. For `cover` the picture is returned as it is
    /// (it was converted to cover).
    public func framed(_ picture: RGBAImage, width: Int, height: Int) -> RGBAImage {
        switch self {
        case .cover:
            return picture
        case .contain:
            guard picture.width != width || picture.height != height else { return picture }
            var framed = RGBAImage(width: width, height: height, fill: .black)
            framed.paste(picture, x: (width - picture.width) / 2, y: (height - picture.height) / 2)
            return framed
        case .blur:
            return RoomPicture.fitted(picture, width: width, height: height)
        }
    }
}
