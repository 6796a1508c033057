"""Password accounts: how passwords are hashed (``hashing``) and which are refused
(``rules``). The ``Password`` provider (``authui.providers.password``) and its pages
(``authui.actions.password``) use them."""
