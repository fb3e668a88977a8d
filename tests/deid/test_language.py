from spacy_linkguard.deid.language import guess_language


def test_guess_language_english_and_others():
    assert guess_language("The applicant was born in 1970 and lives in the city of London with his family.")[0] == "en"
    assert guess_language("Der Beschwerdeführer ist der Ansicht, dass die Entscheidung des Gerichts nicht mit dem Gesetz vereinbar ist.")[0] == "de"
    assert guess_language("Le requérant est né en 1970 et réside dans la ville de Paris avec sa famille.")[0] == "fr"


def test_guess_language_unknown_without_words():
    assert guess_language("") == ("unknown", 0.0)
    assert guess_language("12345 6789 !!!")[0] == "unknown"
    assert guess_language("Xyzzy Plugh Quux Frobnicate Zork")[0] == "unknown"
