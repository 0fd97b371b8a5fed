import Compositor

extension ItemPlayer {
    // MARK: - Lending the shown picture for one frame

    /// What the player holds while its picture is lent.
    private static let standIn = RGBAImage(width: 1, height: 1)

    /// The picture on screen (what `picture(at:)` returned), lent for drawing one frame: until
    /// `giveBack(_:)` the player keeps no reference to its storage, so the borrower can draw the
    /// overlay on it without copying 3.7 MB (at 720x1280) first. The borrower gives it back as
    /// it found it, before the player is asked for its next picture.
    package func lendPicture() -> RGBAImage? {
        guard !isLent, let picture = shown?.image else { return nil }
        isLent = true
        shown?.image = ItemPlayer.standIn
        return picture
    }

    /// Takes back the picture `lendPicture()` lent, unchanged.
    package func giveBack(_ picture: RGBAImage) {
        precondition(isLent, "giving back a picture that was not lent")
        isLent = false
        shown?.image = picture
    }
}
