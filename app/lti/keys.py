"""The tool's signing key: made with the first platform's registration and kept in the database, so
every worker and every restart signs with the same key and platforms keep trusting /lti/jwks. No
request but a registration writes it: a refused launch changes nothing."""

from datetime import UTC, datetime

from sqlalchemy import Connection, insert, select
from sqlalchemy.exc import IntegrityError

from .tables import keys

KID = "codecloze-1"


def stored(db: Connection) -> str | None:
    """The private key (PEM), None until the first platform is registered."""
    return db.execute(select(keys.c.private_pem).where(keys.c.kid == KID)).scalar()


def made(db: Connection) -> str:
    """The private key, made and stored now if there is none yet (with the first registration)."""
    found = stored(db)
    if found:
        return found
    pem = _new_pem()
    try:
        with db.begin_nested():
            db.execute(insert(keys).values(kid=KID, private_pem=pem, created_at=datetime.now(UTC)))
    except IntegrityError:  # another worker made it first: theirs it is
        return stored(db)
    return pem


def public_pem(private: str) -> str:
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(private.encode(), password=None)
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def jwks(private: str) -> dict:
    """The public key set platforms verify the tool's messages with."""
    from pylti1p3.registration import Registration

    return {"keys": [Registration.get_jwk(public_pem(private))]}


def _new_pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
