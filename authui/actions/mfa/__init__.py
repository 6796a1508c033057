"""The second step of a sign-in: whether one is needed (``gate``), the sign-in waiting for
it (``pending``), the challenge page (``challenge``) and what it checks (``factors``,
``passkey``), and the browsers a user trusts (``trust``)."""
