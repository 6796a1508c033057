"""Auth.js's PostgreSQL schema as @auth/pg-adapter documents it (facts, our DDL), shared by
the SQL adapter tests and the pg-adapter interoperability peer. ``{users}`` etc. are table
names, filled in by each user of it."""

from __future__ import annotations

AUTHJS_POSTGRES_DDL = (
    """CREATE TABLE {verification_token} (
        identifier TEXT NOT NULL,
        expires TIMESTAMPTZ NOT NULL,
        token TEXT NOT NULL,
        PRIMARY KEY (identifier, token))""",
    """CREATE TABLE {accounts} (
        id SERIAL,
        "userId" INTEGER NOT NULL,
        type VARCHAR(255) NOT NULL,
        provider VARCHAR(255) NOT NULL,
        "providerAccountId" VARCHAR(255) NOT NULL,
        refresh_token TEXT,
        access_token TEXT,
        expires_at BIGINT,
        id_token TEXT,
        scope TEXT,
        session_state TEXT,
        token_type TEXT,
        PRIMARY KEY (id))""",
    """CREATE TABLE {sessions} (
        id SERIAL,
        "userId" INTEGER NOT NULL,
        expires TIMESTAMPTZ NOT NULL,
        "sessionToken" VARCHAR(255) NOT NULL,
        PRIMARY KEY (id))""",
    """CREATE TABLE {users} (
        id SERIAL,
        name VARCHAR(255),
        email VARCHAR(255),
        "emailVerified" TIMESTAMPTZ,
        image TEXT,
        PRIMARY KEY (id))""",
    """CREATE TABLE {authenticators} (
        "credentialID" TEXT NOT NULL,
        "userId" INTEGER NOT NULL,
        "providerAccountId" TEXT NOT NULL,
        "credentialPublicKey" TEXT NOT NULL,
        counter INTEGER NOT NULL,
        "credentialDeviceType" TEXT NOT NULL,
        "credentialBackedUp" BOOLEAN NOT NULL,
        transports TEXT,
        PRIMARY KEY ("credentialID"))""",
)


# The same schema in MariaDB's words (DATETIME(3) as Prisma keeps JavaScript dates; the
# database's default collation, as an Auth.js app would have created it).
AUTHJS_MARIADB_DDL = tuple(
    ddl.replace('"', "`")
    .replace("SERIAL", "INT AUTO_INCREMENT")
    .replace("TIMESTAMPTZ", "DATETIME(3)")
    .replace("identifier TEXT", "identifier VARCHAR(255)")
    .replace("token TEXT", "token VARCHAR(255)")
    .replace("`credentialID` TEXT", "`credentialID` VARCHAR(255)")
    for ddl in AUTHJS_POSTGRES_DDL
)
