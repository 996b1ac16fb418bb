# kid's types are strings to ActiveRecord (docs/clients.md, Rails'
# ActiveRecord): registered by name in the PostgreSQL adapter's type map, which
# then maps their OIDs, without the "unknown OID" warning for each.  The map is
# made by an instance method in ActiveRecord 6.1, by a class method from 7.0 on.
require 'active_record/connection_adapters/postgresql_adapter'

module KidTypes
  def initialize_type_map(m = type_map)
    super
    %w[sno atproto_tid koid uid uid_global].each { |t| m.register_type t, ActiveRecord::Type::String.new }
  end
end
adapter = ActiveRecord::ConnectionAdapters::PostgreSQLAdapter
(adapter.respond_to?(:initialize_type_map, true) ? adapter.singleton_class : adapter).prepend(KidTypes)
